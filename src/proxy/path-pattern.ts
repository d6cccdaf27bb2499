// Seed paths matched segment by segment. Written as in the seeds, `{name}` captures one segment
// and everything else is literal, including the `:` of custom methods such as
// `transactions:getDeployment` (express 5's path syntax would read that `:` as a parameter).

export type PathMatch =
  | { ok: true; params: Record<string, string> }
  /** The path has the route's shape but a segment is not valid percent-encoding. */
  | { ok: false; param: string };

export class PathPattern {
  private readonly segments: Array<{ literal: string } | { param: string }>;

  constructor(readonly pattern: string) {
    this.segments = pattern
      .split('/')
      .slice(1)
      .map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s }));
  }

  /** Matches a raw (still percent-encoded) path; one trailing slash is tolerated. */
  match(pathname: string): PathMatch | null {
    const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    if (!trimmed.startsWith('/')) return null;
    const parts = trimmed.split('/').slice(1);
    if (parts.length !== this.segments.length) return null;
    const params: Record<string, string> = {};
    let malformed: string | undefined;
    for (let i = 0; i < parts.length; i++) {
      const seg = this.segments[i];
      const part = parts[i] as string;
      if (seg === undefined) return null;
      if ('literal' in seg) {
        if (part !== seg.literal) return null;
        continue;
      }
      if (part === '') return null;
      try {
        params[seg.param] = decodeURIComponent(part);
      } catch {
        malformed ??= seg.param;
      }
    }
    return malformed === undefined ? { ok: true, params } : { ok: false, param: malformed };
  }
}
