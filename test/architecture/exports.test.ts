// Every name a module under src/ exports is used outside that module (by other src/ modules,
// bench/ or test/): an export is a promise to other code, and one nobody takes is either dead or
// an internal detail left public. TypeScript's checker resolves each identifier of every file to
// its declaration. Modules loaded by file name rather than by import (command modules behind
// `import('./cli/x.js')`, worker entries behind `new URL('./worker.ts', import.meta.url)`) count
// as used whole.
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(new URL('../../', import.meta.url).pathname);

function program(): ts.Program {
  const configPath = resolve(ROOT, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!parsed) throw new Error('tsconfig.json could not be read');
  return ts.createProgram(parsed.fileNames, parsed.options);
}

/** Files loaded by name: `import('./x.js')` and `new URL('./x.ts', import.meta.url)`. */
function loadedByName(file: ts.SourceFile, into: Set<string>): void {
  const visit = (node: ts.Node): void => {
    let specifier: string | undefined;
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      specifier = node.arguments[0].text;
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL' && node.arguments?.[0] && ts.isStringLiteral(node.arguments[0])) {
      specifier = node.arguments[0].text;
    }
    if (specifier?.startsWith('.')) into.add(resolve(dirname(file.fileName), specifier).replace(/\.js$/, '.ts'));
    ts.forEachChild(node, visit);
  };
  visit(file);
}

function unusedExports(): string[] {
  const p = program();
  const checker = p.getTypeChecker();
  const files = p.getSourceFiles().filter((f) => !f.isDeclarationFile && f.fileName.startsWith(ROOT) && !f.fileName.includes('/node_modules/'));
  const original = (s: ts.Symbol | undefined): ts.Symbol | undefined => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const usedElsewhere = new Set<ts.Symbol>();
  const byName = new Set<string>();
  for (const file of files) {
    loadedByName(file, byName);
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        const symbol = original(checker.getSymbolAtLocation(node));
        if (symbol?.declarations?.some((d) => d.getSourceFile() !== file)) usedElsewhere.add(symbol);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  const unused: string[] = [];
  for (const file of files) {
    const path = relative(ROOT, file.fileName);
    if (!path.startsWith('src/') || path.startsWith('src/p2p/gen/') || byName.has(file.fileName)) continue;
    const module = checker.getSymbolAtLocation(file);
    if (!module) continue;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = original(exported)!;
      // Re-exports (index.ts) are judged where they are declared.
      if (!symbol.declarations?.some((d) => d.getSourceFile() === file)) continue;
      if (!usedElsewhere.has(symbol)) unused.push(`${path}: ${exported.name}`);
    }
  }
  return unused.sort();
}

describe('exports', () => {
  it('every name a module under src/ exports is used outside it', () => {
    expect(unusedExports()).toEqual([]);
  }, 240_000);
});
