// The Dockerfile read as instructions and carried out as far as a machine without a Docker engine
// can: each stage gets a folder standing for its filesystem; WORKDIR, COPY (from the build
// context, honouring .dockerignore, or --from an earlier stage) and RUN (a shell in the stage's
// working directory, with the stage's ENV, npm preferring its cache) are executed in order. The
// base image is this machine's Node.js; what a folder cannot stand for (USER, EXPOSE, the base
// image itself) is kept for the test to check. An instruction this reader does not know fails,
// so the recipe cannot outgrow the test silently.
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { mustRun, npmEnv } from './staging.js';

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  index: number;
  name: string | undefined;
  image: string;
  /** The folder standing for the stage's filesystem root. */
  root: string;
  /** The working directory inside the image (absolute, POSIX). */
  workdir: string;
  env: Record<string, string>;
  instructions: Instruction[];
}

/** Instructions in order, continuation lines joined, comments and blank lines dropped. */
export function parseDockerfile(text: string): Instruction[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const space = l.search(/\s/);
      return { keyword: l.slice(0, space).toUpperCase(), args: l.slice(space + 1).trim() };
    });
}

/** The JSON (exec) form of CMD, ENTRYPOINT and RUN; undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed as string[];
}

/** .dockerignore as a predicate over context-relative POSIX paths (patterns without `!` or `**`). */
export function dockerignore(contextDir: string): (path: string) => boolean {
  const file = join(contextDir, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#'))
    : [];
  const regexes = patterns.map((p) => {
    if (p.startsWith('!') || p.includes('**')) throw new Error(`.dockerignore pattern this reader does not know: ${p}`);
    const body = p
      .replace(/^\/+|\/+$/g, '')
      .split('')
      .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    // A pattern names a path and everything under it.
    return new RegExp(`^${body}(/.*)?$`);
  });
  return (path) => regexes.some((r) => r.test(path));
}

/** Stages with their instructions (not yet run). */
export function stagesOf(instructions: Instruction[], workDir: string): Stage[] {
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`FROM this reader does not know: ${ins.args}`);
      const index = stages.length;
      stages.push({ index, name: m[2], image: m[1]!, root: join(workDir, `stage-${index}`), workdir: '/', env: {}, instructions: [] });
    } else {
      const stage = stages[stages.length - 1];
      if (!stage) throw new Error(`${ins.keyword} before any FROM`);
      stage.instructions.push(ins);
    }
  }
  return stages;
}

function inside(stage: Stage, path: string): string {
  return join(stage.root, posix.resolve(stage.workdir, path));
}

/** COPY's arguments: sources, destination and --from. */
function copyArgs(args: string): { from: string | undefined; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    const m = /^--from=(.+)$/.exec(flag);
    if (!m) throw new Error(`COPY flag this reader does not know: ${flag}`);
    from = m[1];
  }
  const dest = words.pop();
  if (!dest || words.length === 0) throw new Error(`COPY needs sources and a destination: ${args}`);
  if (words.some((w) => /[*?[]/.test(w))) throw new Error(`COPY with wildcards: ${args}`);
  return { from, sources: words, dest };
}

function copy(fromPath: string, toPath: string, keep: (src: string) => boolean): void {
  mkdirSync(dirname(toPath), { recursive: true });
  cpSync(fromPath, toPath, { recursive: true, filter: keep, verbatimSymlinks: true });
}

/**
 * Carries out every stage in order. `contextDir` is the build context; RUN commands get `runEnv`
 * beneath the stage's ENV. Returns the stages, the last one being the image.
 */
export async function buildStages(dockerfileText: string, contextDir: string, workDir: string, timeoutMs: number): Promise<Stage[]> {
  const stages = stagesOf(parseDockerfile(dockerfileText), workDir);
  const ignored = dockerignore(contextDir);
  for (const stage of stages) {
    mkdirSync(stage.root, { recursive: true });
    for (const ins of stage.instructions) {
      switch (ins.keyword) {
        case 'WORKDIR':
          stage.workdir = posix.resolve(stage.workdir, ins.args);
          mkdirSync(inside(stage, '.'), { recursive: true });
          break;
        case 'ENV':
          for (const [, k, v] of ins.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) stage.env[k!] = v!.replace(/^"|"$/g, '');
          break;
        case 'COPY': {
          const { from, sources, dest } = copyArgs(ins.args);
          const source = from === undefined ? undefined : stages.find((s) => s.name === from || String(s.index) === from);
          if (from !== undefined && (!source || source.index >= stage.index)) throw new Error(`COPY --from=${from}: no earlier stage of that name`);
          const toDir = dest.endsWith('/') || sources.length > 1;
          for (const src of sources) {
            const fromPath = source ? join(source.root, posix.resolve(source.workdir, src)) : join(contextDir, src);
            if (!source && ignored(posix.normalize(src))) throw new Error(`COPY ${src}: the build context leaves it out (.dockerignore)`);
            if (!existsSync(fromPath)) throw new Error(`COPY ${src}: not in ${source ? `stage ${from}` : 'the build context'}`);
            const target = toDir && statSync(fromPath).isFile() ? join(inside(stage, dest), posix.basename(src)) : inside(stage, dest);
            copy(fromPath, target, (p) => source !== undefined || !ignored(relative(contextDir, p).split('\\').join('/')));
          }
          break;
        }
        case 'RUN': {
          if (execForm(ins.args)) throw new Error(`RUN in exec form: ${ins.args}`);
          await mustRun('sh', ['-c', ins.args], { cwd: inside(stage, '.'), env: npmEnv(stage.env), timeoutMs });
          break;
        }
        case 'USER':
        case 'EXPOSE':
        case 'STOPSIGNAL':
        case 'HEALTHCHECK':
        case 'ENTRYPOINT':
        case 'CMD':
          // Kept for the caller: they describe the image, they build nothing.
          break;
        default:
          throw new Error(`Dockerfile instruction this reader does not know: ${ins.keyword}`);
      }
    }
  }
  return stages;
}

/** The last value of an instruction in a stage (USER, ENTRYPOINT, …). */
export function lastOf(stage: Stage, keyword: string): string | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).pop()?.args;
}
