import { readFileSync } from 'node:fs';
import { API_NODE_FLAGS } from './api-process';

/**
 * The API's V8 flags are measured choices (see API_NODE_FLAGS): `npm start` and the Docker image
 * must run the API with exactly them, as the bench and the tests do.
 */
describe('the API node flags', () => {
  const entry = 'dist/apps/api/main.js';

  it('npm start runs the built API with them', () => {
    const start: string = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start;
    expect(start).toBe(['node', ...API_NODE_FLAGS, entry].join(' '));
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
