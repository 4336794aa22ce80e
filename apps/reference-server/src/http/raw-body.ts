import { maxBodyBytes } from '@institution-api/runtime/http';
import express, { type RequestHandler } from 'express';

/** The largest accepted request body (spec: "Assumptions", "Field bounds": 64 KiB, `413` above it). */
export { maxBodyBytes };

/**
 * Reads the request body as raw bytes into `req.body` (a Buffer), whatever its content type, so
 * that {@link authenticate} can verify the signature over exactly the bytes received. Bodies over
 * 64 KiB fail with body-parser's `entity.too.large` (answered 413) without being read to the end.
 * Compressed bodies are refused (415) rather than inflated: the signature covers the bytes as
 * sent, and inflating would let a small request grow past the limit.
 */
export function readRawBody(): RequestHandler {
  return express.raw({ type: () => true, limit: maxBodyBytes, inflate: false });
}
