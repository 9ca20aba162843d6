/**
 * `McpRefreshHook`: wires each adapter's `notifications/tools/list_changed` to
 * `SkillRegistry.refreshAll()`, so a skill's tool set follows the server at run time. The adapter
 * has already re-read every page of `tools/list` and updated the tool registry when it calls back.
 */
import type { McpToolAdapter } from './mcp-tool-adapter.js';
import type { SkillRegistry } from '../registry/skill-registry.js';

/**
 * @example
 * const hook = new McpRefreshHook(skills);
 * hook.attach(githubAdapter);              // or: adapter.onToolsChanged(hook.onToolsChanged)
 */
export class McpRefreshHook {
  private readonly detachers: (() => void)[] = [];

  constructor(private readonly skills: SkillRegistry) {}

  /** The listener to give `adapter.onToolsChanged`. */
  readonly onToolsChanged = (): void => {
    this.skills.refreshAll();
  };

  /** Subscribes to one adapter; returns the unsubscribe. */
  attach(adapter: McpToolAdapter): () => void {
    const detach = adapter.onToolsChanged(this.onToolsChanged);
    this.detachers.push(detach);
    return detach;
  }

  /** Unsubscribes from every adapter it was attached to. */
  detachAll(): void {
    for (const detach of this.detachers.splice(0)) detach();
  }
}
