// The strict half of validating a manifest: a field the Kubernetes API does not define. The
// compiled schemas of kubernetes-models (k8s-validate.mjs) check types, required fields and
// formats but accept unknown keys, as the API server does without strict field validation, so a
// misspelt `livenesProbe` would pass them and be dropped by the cluster. The same package's type
// declarations list every field; TypeScript's excess-property check on the manifest as an object
// literal of that type names each field that is not there.
import { join } from 'node:path';
import * as ts from 'typescript';
import type { Manifest } from './k8s-render';

const ROOT = join(__dirname, '..', '..');

/** One line per field the API does not define (or a kind with no type), naming the manifest. */
export function unknownFields(manifests: Manifest[]): string[] {
  // A virtual file in the project, so that kubernetes-models resolves from its node_modules.
  const fileName = join(ROOT, '.infra', 'k8s-fields', 'manifests.ts');
  const ranges: Array<{ start: number; end: number; manifest: Manifest }> = [];
  let text = '';
  manifests.forEach((manifest, i) => {
    const start = text.length;
    text += `import type { I${manifest.kind} as T${i} } from 'kubernetes-models/${manifest.apiVersion}/${manifest.kind}';\n`;
    text += `export const m${i}: T${i} = ${JSON.stringify(manifest, null, 1)};\n`;
    ranges.push({ start, end: text.length, manifest });
  });
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName ? ts.createSourceFile(name, text, language) : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => name === fileName || fileExists.call(host, name);
  host.readFile = (name) => (name === fileName ? text : readFile.call(host, name));
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    const at = diagnostic.file?.fileName === fileName ? diagnostic.start : undefined;
    const owner = at === undefined ? undefined : ranges.find((range) => at >= range.start && at < range.end);
    return owner ? `${owner.manifest.kind}/${owner.manifest.metadata.name}: ${message}` : message;
  });
}
