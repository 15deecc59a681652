import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

type Core = typeof import('@zxcvbn-ts/core');
type Common = typeof import('@zxcvbn-ts/language-common');
type English = typeof import('@zxcvbn-ts/language-en');

let estimator: ZxcvbnFactory | undefined;

/**
 * log10 of the guesses zxcvbn-ts expects an attacker to need (dictionaries of common passwords,
 * English words and names, keyboard walks, repeats, sequences, l33t substitutions, dates), with
 * `userInputs` as one more dictionary: a value from this repository with a suffix is worth little.
 */
export function guessesLog10(secret: string, userInputs: readonly string[]): number {
  estimator ??= loadEstimator();
  return estimator.check(secret, [...userInputs]).guessesLog10;
}

/**
 * Required on first use, not imported: the dictionaries are 9 MB of JavaScript that only a
 * production start-up with a secret that is not hex of 32 bytes needs (measured on this project's
 * 2-core box: 0.2 s to load and build, then 0.3 s per base64 secret judged; a development
 * start-up, a hex secret or a request never pays it).
 */
function loadEstimator(): ZxcvbnFactory {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { ZxcvbnFactory: Factory } = require('@zxcvbn-ts/core') as Core;
  const common = require('@zxcvbn-ts/language-common') as Common;
  const english = require('@zxcvbn-ts/language-en') as English;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new Factory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  });
}
