'use client';

import { Health } from '@/lib/api';
import { useStatusPoll } from './use-status-poll';

/** `GET /api/health`: is Ollama reachable, which models it has. Shared by the health line and the model select. */
export function useHealth() {
  return useStatusPoll('health', '/api/health', Health);
}
