// Validates Kubernetes manifests against the API's own schemas: kubernetes-models bundles the
// Kubernetes OpenAPI schemas as compiled validators, so no schema is downloaded at test time.
// Reads a JSON array of manifests on stdin; prints a JSON array of { kind, name, error }, one per
// manifest that fails (an unknown apiVersion/kind fails too). An ES module because the package
// is one, with no `require` export that a CommonJS test could load.
import { readFileSync } from 'node:fs';

const manifests = JSON.parse(readFileSync(0, 'utf8'));
const failures = [];
for (const manifest of manifests) {
  const where = { kind: manifest.kind, name: manifest.metadata?.name };
  let Model;
  try {
    Model = (await import(`kubernetes-models/${manifest.apiVersion}/${manifest.kind}`))[manifest.kind];
  } catch {
    failures.push({ ...where, error: `no Kubernetes schema for ${manifest.apiVersion} ${manifest.kind}` });
    continue;
  }
  try {
    new Model(manifest).validate();
  } catch (error) {
    failures.push({ ...where, error: error instanceof Error ? error.message : String(error) });
  }
}
process.stdout.write(`${JSON.stringify(failures)}\n`);
