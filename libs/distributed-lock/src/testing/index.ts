export { FakeDistributedLockService } from './fake-distributed-lock.service';
export { InMemoryDistributedLock } from './in-memory-distributed-lock';
