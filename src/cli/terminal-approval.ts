/**
 * The approval callback of `agents call`: asks on the terminal before an execute tool runs
 * under an `ask` policy — `allow fs/write_file (execute, destructive)? [y/N]` — or approves
 * everything with `--yes`. Stdin closed without an answer is a no.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ApprovalCallback, ApprovalRequest } from '../runtime/permissions.js';
import type { TextSink } from './cli-io.js';

/** `(execute because of its name: word "write" in name)` then `allow fs/write_file (execute, destructive)? [y/N] ` */
export function approvalQuestion(request: Pick<ApprovalRequest, 'tool' | 'category' | 'destructive' | 'because'>): string {
  return `(${request.category} because of ${request.because})\nallow ${request.tool.name} (${request.category}${request.destructive ? ', destructive' : ''})? [y/N] `;
}

/** `y` and `yes`, in any case, approve; anything else refuses. */
export function isYes(answer: string): boolean {
  return /^\s*y(es)?\s*$/i.test(answer);
}

export interface TerminalApproval {
  readonly approve: ApprovalCallback;
  /** Stops reading stdin, so the process can exit. */
  close(): void;
}

/**
 * @example
 * const approval = terminalApproval({ input: process.stdin, prompt: process.stderr });
 * await createRuntime({ file, approve: approval.approve });
 */
export function terminalApproval(options: { input: Readable; prompt: TextSink; yes?: boolean }): TerminalApproval {
  if (options.yes === true) return { approve: () => true, close: () => undefined };
  const lines = lineQueue(options.input);
  // One question at a time: answers are read in order from one stream.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = async (question: string): Promise<boolean> => {
    options.prompt.write(question);
    const line = await lines.next();
    if (line === undefined) {
      options.prompt.write('\n(no answer: stdin is closed; pass --yes to approve without asking)\n');
      return false;
    }
    // A terminal echoes the answer and its newline; piped input does not, so echo it here.
    if ((options.input as { isTTY?: boolean }).isTTY !== true) options.prompt.write(`${line}\n`);
    return isYes(line);
  };
  return {
    approve(request) {
      const answer = queue.then(() => ask(approvalQuestion(request)));
      queue = answer;
      return answer;
    },
    close: () => lines.close(),
  };
}

/** Lines of `input`, read only once the first is asked for; undefined once it has ended. */
function lineQueue(input: Readable): { next(): Promise<string | undefined>; close(): void } {
  let reader: ReturnType<typeof createInterface> | undefined;
  const buffered: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  const deliver = (line: string | undefined): void => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(line);
  };
  return {
    next() {
      if (!reader && !ended) {
        reader = createInterface({ input, terminal: false });
        reader.on('line', (line) => (waiting ? deliver(line) : buffered.push(line)));
        reader.on('close', () => {
          ended = true;
          deliver(undefined);
        });
      }
      return new Promise((resolve) => {
        if (buffered.length > 0) resolve(buffered.shift());
        else if (ended) resolve(undefined);
        else waiting = resolve;
      });
    },
    close() {
      ended = true;
      reader?.close();
      deliver(undefined);
    },
  };
}
