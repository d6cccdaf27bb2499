/**
 * A devnet that cannot be built as asked: the option at fault (e.g. `byzantine`, `validators`)
 * and why, in words a CLI user can act on.
 */
export class DevnetGenesisError extends Error {
  override readonly name = 'DevnetGenesisError';
  constructor(
    readonly option: string,
    readonly reason: string,
  ) {
    super(`--${option}: ${reason}`);
  }
}
