import { readFileSync } from 'node:fs';
import { API_NODE_FLAGS } from './api-process';

/**
 * The API's V8 flags are measured choices (see API_NODE_FLAGS): `npm start` and the Docker image
 * must run the API with exactly them, as the bench and the tests do.
 */
describe('the API node flags', () => {
  const entry = 'dist/apps/api/main.js';

  it('npm start and npm run start:prod run the built API with them, on the Node floor', () => {
    const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts;
    expect(scripts.start).toBe('bash scripts/start.sh');
    expect(scripts['start:prod']).toBe('bash scripts/start.sh');
    const startScript = readFileSync('scripts/start.sh', 'utf8');
    expect(startScript).toContain('source scripts/node-floor.sh');
    expect(startScript).toContain(`exec ${['node', ...API_NODE_FLAGS, entry].join(' ')} "$@"`);
  });

  it('the Docker image runs the built API with them', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync('Dockerfile', 'utf8'));
    expect(cmd).not.toBeNull();
    expect(JSON.parse(cmd![1])).toEqual(['node', ...API_NODE_FLAGS, entry]);
  });

  it('the README quotes them', () => {
    expect(readFileSync('README.md', 'utf8')).toContain(`\`${['node', ...API_NODE_FLAGS, entry].join(' ')}\``);
  });
});
