// `warpgate devnet` as a person runs it: in a terminal (a pseudo-terminal from util-linux's
// `script`), where stdout and stderr are a TTY. The logs are pretty lines rather than JSON, the
// banner names the status page, and Ctrl-C (a real one: ETX typed into the terminal, which sends
// SIGINT to its foreground process group) stops it cleanly.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { WARPGATE } from '../source-cli.js';

const ANSI = /\u001b\[[0-9;]*m/g;

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

describe('warpgate devnet in a terminal', () => {
  it('writes pretty log lines, names the status page, and stops on Ctrl-C with exit 0', async () => {
    // `exec`: script runs the command through $SHELL -c (dash when SHELL is unset, as under CI),
    // and dash stays as node's parent; Ctrl-C would then kill dash too, and script would report
    // its 130 instead of node's exit status.
    const command = 'exec ' + [process.execPath, ...WARPGATE, 'devnet', '--port', '0', '--validators', '2', '--transport', 'ws'].map(shellQuote).join(' ');
    const env = { ...process.env };
    delete env.NO_COLOR;
    env.SHELL = '/bin/sh';
    const terminal = spawn('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env });
    let output = '';
    terminal.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
    terminal.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = once(terminal, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const until = Date.now() + 60_000;
    while (!output.includes('Readiness:')) {
      if (terminal.exitCode !== null) throw new Error(`exited early: ${output}`);
      if (Date.now() > until) {
        terminal.kill('SIGKILL');
        throw new Error(`no banner within 60 s: ${output}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    terminal.stdin!.write('\u0003');
    const timer = setTimeout(() => terminal.kill('SIGKILL'), 30_000);
    const [code] = await exited;
    clearTimeout(timer);
    expect(code, output).toBe(0);

    // Colour on a terminal; without it, each log line reads: [time] LEVEL: message {fields}.
    expect(output).toMatch(ANSI);
    const lines = output.replace(ANSI, '').split(/\r?\n/);
    const url = /^ {2}service +(http:\/\/\S+)$/m.exec(lines.join('\n'))?.[1];
    expect(url).toBeDefined();
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: warpgate listening \{"url":"http:\/\/127\.0\.0\.1:\d+"/));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ {2}status page +${url!.replace(/\./g, '\\.')}/status\\b`)));
    expect(lines).toContainEqual(expect.stringMatching(/INFO: stopped$/));
    // No JSON log line anywhere.
    expect(lines.filter((l) => l.includes('"level":'))).toEqual([]);
  }, 90_000);
});
