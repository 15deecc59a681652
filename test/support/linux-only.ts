/**
 * `describe` on Linux; on any other system `describe.skip`, after one line saying what the suite
 * needs, so a Mac's run reports the suite skipped instead of failing inside it (a Debian package
 * installed with apt-get, /proc, libfaketime's LD_PRELOAD).
 */
export function describeOnLinux(needs: string, platform: NodeJS.Platform = process.platform): jest.Describe {
  if (platform === 'linux') return describe;
  process.stdout.write(`skipped on ${platform}: this suite needs Linux (${needs})\n`);
  return describe.skip;
}
