/** Replaces the entry at `path` by a git directory whose hooks and fsmonitor touch `marker`. */
export declare function plantGitDir(path: string, marker: string): void;
