import { z } from 'zod';

/**
 * Who acts on a run (gives a verdict, decides on a plan): the name of the
 * token the request carried (`PLANSCOPE_TOKEN_NAME`), or `local` when the
 * server needs no token or the CLI's terminal asks.
 */
export const LOCAL_PERSON = 'local';
export const MAX_PERSON_CHARS = 100;
export const Person = z.string().min(1).max(MAX_PERSON_CHARS);
