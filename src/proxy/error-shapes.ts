// The error bodies of the three APIs the proxy serves. The server renders its own endpoints'
// errors with these too, so a client sees one shape per API whoever produced the error.
import { STATUS_CODES } from 'node:http';

/** The standard reason phrase of an HTTP status ("Bad Request" for 400). */
export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

/** Data API (seed 000 section 7): `message` is one string. */
export interface DataApiErrorBody {
  message: string;
  statusCode: number;
  error: string;
}

export function dataApiError(status: number, message: string): DataApiErrorBody {
  return { message, statusCode: status, error: reasonPhrase(status) };
}

/** Metrics API (seed 001 section 7): `message` is an array of strings. */
export interface MetricsApiErrorBody {
  message: string[];
  statusCode: number;
  error: string;
}

export function metricsApiError(status: number, message: string | string[]): MetricsApiErrorBody {
  return { message: Array.isArray(message) ? [...message] : [message], statusCode: status, error: reasonPhrase(status) };
}

/** A JSON-RPC request id as a response echoes it; null when the request's id is unknown. */
export type JsonRpcId = string | number | null;

interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  error: JsonRpcErrorObject;
  id: JsonRpcId;
}

/**
 * A JSON-RPC error response as avalanchego's gorilla json2 codec writes it: `data` is always
 * present (null unless given), the HTTP status stays 200.
 */
export function jsonRpcError(id: JsonRpcId, code: number, message: string, data: unknown = null): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', error: { code, message, data }, id };
}

/** A JSON-RPC error response as geth (EVM `/rpc` endpoints) writes it: no `data` member. */
export function gethRpcError(id: JsonRpcId, code: number, message: string): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', error: { code, message }, id };
}
