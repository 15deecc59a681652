export default async function globalTeardown(): Promise<void> {
  const postgres = (globalThis as { __privatePostgres?: { stop(): Promise<void> } }).__privatePostgres;
  await postgres?.stop();
}
