import { cpus, loadavg, totalmem } from 'node:os';
import Redis from 'ioredis';
import { redisVersion } from './server-stats';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  node: string;
  redis: string;
  /** 1-minute load average at start and end: how busy the shared machine was */
  loadStart: number;
  loadEnd?: number;
}

export async function describeMachine(admin: Redis): Promise<MachineInfo> {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    redis: await redisVersion(admin),
    loadStart: loadavg()[0],
  };
}

export function finishMachine(info: MachineInfo): MachineInfo {
  return { ...info, loadEnd: loadavg()[0] };
}
