import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { approvalQuestion, isYes, terminalApproval } from '../../../src/cli/terminal-approval.js';
import type { ApprovalRequest } from '../../../src/runtime/permissions.js';

function request(name: string, destructive: boolean): ApprovalRequest {
  return {
    actor: 'a',
    tenant: 't',
    tool: { name } as ApprovalRequest['tool'],
    category: 'execute',
    because: 'its name: word "write" in name',
    destructive,
    destructiveBecause: 'follows writes',
    args: {},
  };
}

function sink(): { text: string; write(chunk: string): void } {
  return {
    text: '',
    write(chunk: string) {
      this.text += chunk;
    },
  };
}

describe('terminal approval', () => {
  it('asks with the tool, its category and whether it is destructive', () => {
    expect(approvalQuestion(request('fs/write_file', true))).toBe(
      '(execute because of its name: word "write" in name)\nallow fs/write_file (execute, destructive)? [y/N] ',
    );
    expect(approvalQuestion(request('fx/echo', false))).toBe(
      '(execute because of its name: word "write" in name)\nallow fx/echo (execute)? [y/N] ',
    );
  });

  it('takes y and yes as approval and anything else as a refusal', () => {
    for (const answer of ['y', 'Y', 'yes', ' YES ']) expect(isYes(answer)).toBe(true);
    for (const answer of ['', 'n', 'no', 'yy', 'sure']) expect(isYes(answer)).toBe(false);
  });

  it('reads one answer a question from stdin, in order', async () => {
    const input = new PassThrough();
    const prompt = sink();
    const approval = terminalApproval({ input, prompt });
    const first = approval.approve(request('a/one', true));
    const second = approval.approve(request('a/two', false));
    input.write('y\nn\n');
    await expect(first).resolves.toBe(true);
    await expect(second).resolves.toBe(false);
    approval.close();
    const why = '(execute because of its name: word "write" in name)\n';
    expect(prompt.text).toBe(`${why}allow a/one (execute, destructive)? [y/N] y\n${why}allow a/two (execute)? [y/N] n\n`);
  });

  it('refuses when stdin closes without an answer, and says how to approve', async () => {
    const input = new PassThrough();
    const prompt = sink();
    const approval = terminalApproval({ input, prompt });
    const answer = approval.approve(request('a/one', true));
    input.end();
    await expect(answer).resolves.toBe(false);
    expect(prompt.text).toContain('pass --yes');
    await expect(approval.approve(request('a/two', true))).resolves.toBe(false);
  });

  it('approves everything without asking under --yes', async () => {
    const prompt = sink();
    const approval = terminalApproval({ input: new PassThrough(), prompt, yes: true });
    expect(await approval.approve(request('a/one', true))).toBe(true);
    expect(prompt.text).toBe('');
  });
});
