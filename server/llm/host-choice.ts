import { sameModel, type WorkerHost } from '../../lib/worker';
import type { Config } from '../config';
import { EMBEDDED_HOST } from './embedded/model';
import { processHostSlots, type CallSlots } from './host-slots';
import { openaiServerOf, resolveModel } from './resolve';
import type { Model } from './types';

/**
 * Which of this process's Ollama hosts a run's calls go to. A run keeps the
 * host it was given for all its calls (a model loaded on one GPU should not
 * hop), so the choice is made once, when the run starts executing here:
 * the least busy of the hosts that have its model, ties going to the host
 * configured first.
 */

/** One configured host and the models it listed when this process registered as a worker (null: not read yet, or not at all). */
export interface HostModels {
  /** As configured, credentials included. */
  host: string;
  models: readonly string[] | null;
}

/**
 * The hosts that serve `model`, in the order configured: those whose model
 * list has it. The default host (the first) also serves the default model,
 * and serves any model no host lists, as it did when there was only one,
 * so a run of a model nobody has fails there visibly (`model_not_found`).
 */
export function hostsServing(model: string, hosts: readonly HostModels[], defaultModel: string): string[] {
  const [first] = hosts;
  if (!first) return [];
  const listing = hosts.filter((h) => h.models?.some((m) => sameModel(m, model))).map((h) => h.host);
  if (sameModel(model, defaultModel) && !listing.includes(first.host)) listing.unshift(first.host);
  return listing.length > 0 ? listing : [first.host];
}

/** The host with the least `busy`, the first configured among equals; null when there is none. */
export function leastBusy(hosts: readonly string[], busy: (host: string) => number): string | null {
  let best: string | null = null;
  let bestLoad = Infinity;
  for (const host of hosts) {
    const load = busy(host);
    if (load < bestLoad) {
      best = host;
      bestLoad = load;
    }
  }
  return best;
}

/**
 * The runs of this process that keep each host. A run between two calls
 * holds no call slot, yet its next calls will go to its host: runs started
 * at once have no call in flight when their hosts are chosen, so they count
 * here, beside the calls in flight and waiting.
 */
export class HostKeepers {
  private readonly runs = new Map<string, number>();

  count(host: string): number {
    return this.runs.get(host) ?? 0;
  }

  /** `host` is kept by one more run until the returned release is called (idempotent). */
  keep(host: string): () => void {
    this.runs.set(host, this.count(host) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.count(host) - 1;
      if (left > 0) this.runs.set(host, left);
      else this.runs.delete(host);
    };
  }
}

/** The hosts as this process registered them: each configured host with the models its `/api/tags` listed. */
export function hostModelsOf(configured: readonly string[], registered: readonly WorkerHost[] | null): HostModels[] {
  return configured.map((host, i) => {
    const entry = registered?.[i];
    return { host, models: entry ? (entry.reachable ? entry.models : []) : null };
  });
}

/**
 * The host choice of this process's runs: the hosts as registered (null
 * until this process registers as a worker), and the runs keeping each.
 * With slots shared across processes (PostgreSQL), the other processes'
 * runs and calls at each host count too, read as a run starts here.
 */
export class HostChoice {
  /** This process's Ollama hosts with the models each listed when it registered as a worker; null until then. */
  private registeredHosts: readonly WorkerHost[] | null = null;
  /** How many of the runs executing here keep each host. */
  private readonly hostKeepers = new HostKeepers();

  constructor(
    private readonly config: Config,
    private readonly slots: CallSlots = processHostSlots,
  ) {}

  /** The models each Ollama host listed, in the order configured (this process's worker registration): what host choice goes by. */
  serveFrom(hosts: readonly WorkerHost[]): void {
    this.registeredHosts = hosts;
  }

  /**
   * The model of a run that starts executing here, at the least busy host
   * that has it (calls in flight and waiting there, and runs keeping it),
   * kept by the run until `release`: all its calls go there. `ready` is the
   * model as the run's readiness check found it; its facts hold for the
   * same model on any host. The other processes' load is read first, when
   * the slots are shared.
   */
  async modelOnHost(name: string, ready: Model | null): Promise<{ model: Model; release: () => void }> {
    await this.slots.refresh?.(this.candidates(name));
    const host = this.leastBusyHost(name);
    const model = resolveModel(name, this.config, host, this.slots);
    const chosen = ready && ready.contextLength !== undefined ? { ...model, contextLength: ready.contextLength } : model;
    // The baseline and an embedded model run in this process: no host is kept by them.
    if (model.baseline || model.host === EMBEDDED_HOST) return { model: chosen, release: () => {} };
    const here = this.hostKeepers.keep(host);
    const shared = this.slots.keep?.(host);
    return {
      model: chosen,
      release: () => {
        here();
        shared?.();
      },
    };
  }

  /** The least busy of this process's Ollama hosts that have model `name` now (its server, for an OpenAI-compatible server's model): calls in flight and waiting there, and runs keeping it. */
  leastBusyHost(name: string): string {
    return leastBusy(this.candidates(name), (h) => this.hostKeepers.count(h) + this.slots.load(h)) ?? this.config.ollamaHost;
  }

  /** The hosts model `name` may go to: an OpenAI-compatible server is the one host of its models. */
  private candidates(name: string): string[] {
    const served = openaiServerOf(this.config, name);
    if (served) return [served.server.baseUrl];
    return hostsServing(name, hostModelsOf(this.config.ollamaHosts, this.registeredHosts), this.config.model);
  }
}
