import { codeBlocks, readLibraryFile, readmeRegions } from './readme-examples';

describe("the lock library's README examples", () => {
  const readme = readLibraryFile('README.md');
  const typescriptBlocks = codeBlocks(readme).filter((block) => block.language === 'ts');

  it('names an example file for every TypeScript block', () => {
    const unmarked = typescriptBlocks.filter((block) => !block.file).map((block) => `line ${block.line}`);
    expect(unmarked).toEqual([]);
    expect(typescriptBlocks.length).toBeGreaterThanOrEqual(5);
  });

  it.each(typescriptBlocks.filter((block) => block.file).map((block) => [block.file!, block] as const))(
    'shows %s exactly as the file that the package smoke test compiles and runs',
    (file, block) => {
      expect(block.code).toBe(readmeRegions(readLibraryFile(file)));
    },
  );

  it('reads regions across a file, dedented and joined by a blank line', () => {
    const source = [
      'x',
      '// README:begin',
      'import a;',
      '// README:end',
      'f() {',
      '  // README:begin',
      '  a();',
      '    b();',
      '  // README:end',
      '}',
    ].join('\n');
    expect(readmeRegions(source)).toBe('import a;\n\na();\n  b();');
  });
});
