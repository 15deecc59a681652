import { describeOnLinux } from '../../test/support/linux-only';
import { installCommand } from './system-packages';

describe('what a missing tool asks for', () => {
  it('names apt-get on Linux and Homebrew, by its package names, on macOS', () => {
    expect(installCommand(['redis-server'], 'linux')).toBe('apt-get install -y redis-server');
    expect(installCommand(['redis-server'], 'darwin')).toBe('brew install redis');
    expect(installCommand(['postgresql', 'faketime', 'wrk'], 'darwin')).toBe(
      'brew install postgresql@17 libfaketime wrk',
    );
    expect(installCommand(['iproute2'], 'darwin')).toBe('no Homebrew package provides iproute2: run this on Linux');
  });
});

describe('a Linux-only suite', () => {
  it('runs on Linux and is skipped elsewhere with one line naming what it needs', () => {
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(describeOnLinux('/proc', 'linux')).toBe(describe);
      expect(write).not.toHaveBeenCalled();
      expect(describeOnLinux('/proc', 'darwin')).toBe(describe.skip);
      expect(write.mock.calls).toEqual([['skipped on darwin: this suite needs Linux (/proc)\n']]);
    } finally {
      write.mockRestore();
    }
  });
});
