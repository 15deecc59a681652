// Renders a kustomization under deploy/k8s the way `kustomize build` does, for the fields those
// files use: `resources` (files and directories), `namespace`, `images` and JSON patches
// (RFC 6902) with a kind/name target. Neither kustomize nor a current kubectl installs from npm or
// Debian (Debian's kubernetes-client is 1.20, whose kustomize predates `patches`), so CI renders
// with this; a field it does not know stops it rather than being skipped, and where a kubectl is
// on PATH the spec compares the two renderings.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { load, loadAll } from 'js-yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

interface ImageRule {
  name: string;
  newName?: string;
  newTag?: string;
}

interface PatchRule {
  path: string;
  target: { kind: string; name: string };
}

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: ImageRule[];
  patches?: PatchRule[];
}

/** The kustomization fields this renderer implements; any other one is refused. */
const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);

/** Kinds that live in no namespace: `namespace:` leaves them alone, as kustomize does. */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PriorityClass', 'StorageClass']);

export function renderKustomization(directory: string): Manifest[] {
  const file = join(directory, 'kustomization.yaml');
  const kustomization = load(readFileSync(file, 'utf8')) as Kustomization & Record<string, unknown>;
  const unknown = Object.keys(kustomization).filter((field) => !KNOWN_FIELDS.has(field));
  if (unknown.length) throw new Error(`${file}: this renderer does not implement ${unknown.join(', ')}`);

  const manifests = (kustomization.resources ?? []).flatMap((entry) => {
    const path = resolve(directory, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    return statSync(path).isDirectory() ? renderKustomization(path) : readManifests(path);
  });
  for (const patch of kustomization.patches ?? []) {
    const targets = manifests.filter((m) => m.kind === patch.target.kind && m.metadata.name === patch.target.name);
    if (targets.length !== 1) throw new Error(`${file}: patch ${patch.path} matches ${targets.length} resources`);
    const operations = load(readFileSync(resolve(directory, patch.path), 'utf8'));
    if (!Array.isArray(operations))
      throw new Error(`${patch.path}: only JSON patches (a list of operations) are rendered`);
    for (const operation of operations as JsonPatchOperation[]) applyOperation(targets[0], operation, patch.path);
  }
  for (const manifest of manifests) {
    if (kustomization.namespace && !CLUSTER_SCOPED.has(manifest.kind))
      manifest.metadata.namespace = kustomization.namespace;
    for (const rule of kustomization.images ?? []) for (const c of containersOf(manifest)) retag(c, rule);
  }
  return manifests;
}

function readManifests(path: string): Manifest[] {
  const documents = loadAll(readFileSync(path, 'utf8')).filter((doc) => doc !== null && doc !== undefined);
  for (const doc of documents as Manifest[])
    if (!doc.apiVersion || !doc.kind || !doc.metadata?.name)
      throw new Error(`${path}: a document without apiVersion, kind or metadata.name`);
  return documents as Manifest[];
}

/** The containers of a pod, or of the pod template of a workload (Deployment, Job, ...). */
export function containersOf(manifest: Manifest): Array<{ name: string; image?: string; [key: string]: unknown }> {
  const spec = manifest.spec as { template?: { spec?: PodSpec } } & PodSpec;
  const pod = manifest.kind === 'Pod' ? spec : spec?.template?.spec;
  return [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
}

interface PodSpec {
  containers?: Array<{ name: string; image?: string }>;
  initContainers?: Array<{ name: string; image?: string }>;
}

/** kustomize's image rule: an image named `name` (any tag or digest) gets the new name and tag. */
function retag(container: { image?: string }, rule: ImageRule): void {
  const image = container.image;
  if (!image) return;
  const name = image.replace(/@.*$/, '').replace(/:[^:/]*$/, '');
  if (name !== rule.name) return;
  const tag = image.slice(name.length);
  container.image = `${rule.newName ?? name}${rule.newTag !== undefined ? `:${rule.newTag}` : tag}`;
}

export interface JsonPatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

/** One RFC 6902 operation of the three the overlays use; any other op is refused. */
export function applyOperation(document: object, operation: JsonPatchOperation, source: string): void {
  const keys = operation.path
    .split('/')
    .slice(1)
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = keys.pop();
  if (last === undefined) throw new Error(`${source}: ${operation.op} at the document root`);
  let parent: unknown = document;
  for (const key of keys) {
    parent = (parent as Record<string, unknown>)?.[key];
    if (parent === undefined || parent === null) throw new Error(`${source}: ${operation.path} has no parent`);
  }
  const list = Array.isArray(parent) ? (parent as unknown[]) : undefined;
  const record = parent as Record<string, unknown>;
  const exists = list ? Number(last) < list.length : last in record;
  switch (operation.op) {
    case 'add':
      if (list) list.splice(last === '-' ? list.length : Number(last), 0, operation.value);
      else record[last] = operation.value;
      return;
    case 'replace':
    case 'remove':
      // kustomize (like RFC 6902) fails when the path is missing: a renamed field cannot slip by.
      if (!exists) throw new Error(`${source}: ${operation.op} of ${operation.path}, which does not exist`);
      if (list) list.splice(Number(last), 1, ...(operation.op === 'replace' ? [operation.value] : []));
      else if (operation.op === 'replace') record[last] = operation.value;
      else delete record[last];
      return;
    default:
      throw new Error(`${source}: op ${operation.op} is not rendered here`);
  }
}

/** Every kustomization directory under a folder (those a CI check should render). */
export function kustomizationsUnder(root: string): string[] {
  const found: string[] = [];
  const visit = (directory: string): void => {
    if (existsSync(join(directory, 'kustomization.yaml'))) found.push(directory);
    for (const entry of readdirSync(directory)) {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) visit(path);
    }
  };
  visit(root);
  return found.sort();
}
