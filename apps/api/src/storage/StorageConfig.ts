/**
 * Which document storage the product uses, read from the environment once:
 *
 * | variable               | default             | meaning                                                       |
 * | ---------------------- | ------------------- | ------------------------------------------------------------- |
 * | STORAGE                | local-disk          | `local-disk` (files under DATA_DIR/files) or `s3`             |
 * | S3_BUCKET              | (required for s3)   | the bucket                                                    |
 * | S3_REGION              | us-east-1           | the bucket's region                                           |
 * | S3_ENDPOINT            | (unset: AWS)        | an S3-compatible store's address, such as http://minio:9000   |
 * | S3_FORCE_PATH_STYLE    | true with endpoint  | path-style addresses (bucket in the path), as most stores use |
 * | S3_ACCESS_KEY_ID       | (SDK default chain) | access key; with S3_SECRET_ACCESS_KEY                          |
 * | S3_SECRET_ACCESS_KEY   | (SDK default chain) | secret key                                                    |
 */
import { Config, Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { AppConfig } from "../platform/AppConfig.js"
import * as LocalDiskStorage from "./LocalDiskStorage.js"
import type * as S3Storage from "./S3Storage.js"
import { UrlSigner } from "./UrlSigner.js"

/** The storage choice: the local disk under a root, or an S3-compatible bucket. */
export type StorageChoice =
  | { readonly _tag: "local-disk"; readonly root: string }
  | ({ readonly _tag: "s3" } & S3Storage.S3Options)

/** Reads the storage choice (see the table above); files on the local disk go under `dataDir/files`. */
export const fromEnv = (dataDir: string) =>
  Effect.gen(function* () {
    const kind = yield* Config.literal("local-disk", "s3")("STORAGE").pipe(Config.withDefault("local-disk" as const))
    if (kind === "local-disk") return { _tag: "local-disk", root: path.resolve(dataDir, "files") } as StorageChoice
    const bucket = yield* Config.nonEmptyString("S3_BUCKET")
    const region = yield* Config.nonEmptyString("S3_REGION").pipe(Config.withDefault("us-east-1"))
    const endpoint = Option.getOrUndefined(yield* Config.url("S3_ENDPOINT").pipe(Config.option))?.toString()
    const forcePathStyle = yield* Config.boolean("S3_FORCE_PATH_STYLE").pipe(Config.withDefault(endpoint !== undefined))
    const accessKeyId = Option.getOrUndefined(yield* Config.nonEmptyString("S3_ACCESS_KEY_ID").pipe(Config.option))
    const secretAccessKey = Option.getOrUndefined(
      yield* Config.nonEmptyString("S3_SECRET_ACCESS_KEY").pipe(Config.option)
    )
    return {
      _tag: "s3",
      bucket,
      region,
      endpoint: endpoint?.replace(/\/+$/, ""),
      forcePathStyle,
      credentials:
        accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : undefined
    } as StorageChoice
  })

/** The storage layer for a choice; local-disk download addresses point at `baseUrl`. */
export const layer = (choice: StorageChoice, baseUrl: string) =>
  choice._tag === "local-disk"
    ? LocalDiskStorage.layer({ root: choice.root, baseUrl })
    : // Imported only when chosen: the AWS SDK is ~4 MB of heap and ~10 MB of RSS a local-disk process never uses.
      Layer.unwrapEffect(Effect.promise(() => import("./S3Storage.js")).pipe(Effect.map((s3) => s3.layer(choice))))

/** The configured storage (the environment's choice, with the API host's public address) and the URL signer. */
export const StorageLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const choice = yield* fromEnv(config.dataDir).pipe(Effect.orDie)
    return layer(choice, config.baseUrl)
  })
).pipe(Layer.provideMerge(UrlSigner.Default))

/** A given storage choice and the URL signer (tests). */
export const layerWithSigner = (choice: StorageChoice, baseUrl: string) =>
  layer(choice, baseUrl).pipe(Layer.provideMerge(UrlSigner.Default))
