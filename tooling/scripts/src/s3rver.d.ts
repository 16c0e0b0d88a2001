// s3rver ships no types; the tests use this much of it.
declare module "s3rver" {
  import type { AddressInfo } from "node:net"
  interface S3rverOptions {
    readonly address?: string
    readonly port?: number
    readonly silent?: boolean
    readonly directory?: string
    readonly resetOnClose?: boolean
    readonly configureBuckets?: ReadonlyArray<{ readonly name: string }>
  }
  export default class S3rver {
    constructor(options: S3rverOptions)
    run(): Promise<AddressInfo>
    close(): Promise<void>
  }
}
