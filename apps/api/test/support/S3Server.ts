/**
 * A real S3-compatible server for tests (s3rver, on a free loopback port, files in a temporary directory), and the
 * storage options that reach it. s3rver's fixed credentials are `S3RVER` / `S3RVER`.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import S3rver from "s3rver"
import type { S3Options } from "../../src/storage/S3Storage.js"

export interface S3Server {
  readonly options: S3Options
  readonly close: () => Promise<void>
}

export const start = async (bucket = "propline-test"): Promise<S3Server> => {
  const directory = await mkdtemp(path.join(tmpdir(), "propline-s3rver-"))
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }]
  })
  const address = await server.run()
  return {
    options: {
      bucket,
      region: "us-east-1",
      endpoint: `http://127.0.0.1:${address.port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }
    },
    close: async () => {
      await server.close()
      await rm(directory, { recursive: true, force: true })
    }
  }
}
