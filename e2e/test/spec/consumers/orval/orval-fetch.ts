/**
 * orval's fetch mutator: every generated call comes here with the spec's absolute URL (its first
 * server, the local sandbox) and the request it built. It sends it, signed, to the configured
 * base URL, and answers in the shape orval's functions return: `{ data, status, headers }`.
 */
import { env, signedFetch } from './shared.js';

export const orvalFetch = async <T>(url: string, options: RequestInit): Promise<T> => {
  const { pathname, search } = new URL(url);
  const response = await signedFetch(new URL(`${pathname}${search}`, env.baseUrl), options);
  const text = await response.text();
  return {
    data: text ? JSON.parse(text) : undefined,
    status: response.status,
    headers: response.headers,
  } as T;
};
