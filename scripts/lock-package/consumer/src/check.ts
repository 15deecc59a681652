import { strict as assert } from 'node:assert';

/** Runs one named check and prints it, so a failure says which behaviour of the package broke. */
export async function check(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
    console.log(`  ok   ${name}`);
  } catch (error) {
    console.log(`  FAIL ${name}`);
    throw error;
  }
}

export { assert };
