// The transport-floor benchmark's one pure part: its flags. Importing the module must not start it.
import { describe, expect, it } from 'vitest';
import { BenchArgsError } from '../../bench/args.js';
import { parseFloorArgs } from '../../bench/transport-floor.js';

describe('transport-floor flags', () => {
  it('defaults to 1,000 connections, 50 rounds, 2 client processes, no JSON', () => {
    expect(parseFloorArgs([])).toEqual({ connections: 1000, rounds: 50, clientProcesses: 2, json: undefined });
  });

  it('reads every flag, with a space or an equals sign', () => {
    expect(parseFloorArgs(['--connections', '100', '--rounds=7', '--client-processes', '3', '--json=out/f.json'])).toEqual({
      connections: 100,
      rounds: 7,
      clientProcesses: 3,
      json: 'out/f.json',
    });
  });

  it.each([
    [['--connections', '0'], '--connections'],
    [['--rounds', '2.5'], '--rounds'],
    [['--client-processes', '65'], '--client-processes'],
    [['--rounds'], '--rounds'],
    [['--bogus', '1'], '--bogus'],
    [['--connections', '2', '--client-processes', '3'], '--client-processes'],
  ])('rejects %j naming %s', (argv, flag) => {
    const err = (() => {
      try {
        parseFloorArgs(argv);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(BenchArgsError);
    expect((err as BenchArgsError).flag).toBe(flag);
  });
});
