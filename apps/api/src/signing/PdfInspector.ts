/**
 * Inspects an uploaded signed PDF off the event loop (issue 19 item 1): its SHA-256 (node:crypto) and its
 * structure (`@propline/signing/PdfStructure`: header, file trailer, `/Encrypt`) are computed in a worker thread
 * that gets a time budget and a memory bound, and at most {@link PdfInspectorOptions.concurrency} such workers run
 * at once (a semaphore; further uploads wait their turn). A body whose inspection does not finish in the budget, or
 * that ends its worker (memory, a crash), comes back without the parts not finished, and the pure rule
 * (`SignedDocument.checkDocument`) refuses it `CRM_SIGNED_DOCUMENT_REJECTED` (`too-complex`).
 *
 * The worker's code is the short script below, run with `eval`, which imports the structure module by the file
 * address Node resolves for `@propline/signing/PdfStructure` (the package's built `dist`): the same in the built
 * product (`apps/api/dist`) and under vitest (which runs `src` through its own transform, unavailable to a worker).
 */
import type { DocumentInspection } from "@propline/signing/SignedDocument"
import type { PdfStructure } from "@propline/signing/PdfStructure"
import { Effect } from "effect"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"

/**
 * The inspector's bounds: `budgetMillis`, the wall-clock time one inspection may take from the worker's start
 * (≥ its CPU time); `maxOldGenerationSizeMb`, the worker's heap; `concurrency`, the inspections at once.
 */
export interface PdfInspectorOptions {
  readonly budgetMillis: number
  readonly maxOldGenerationSizeMb: number
  readonly concurrency: number
}

/**
 * 5 s for a body of at most 25 MiB, whose whole check takes about 0.3 s of CPU at worst (docs/performance.md);
 * a 32 MiB heap, where the check allocates a few KiB; two at once, the cores a small host has.
 */
export const DEFAULT_PDF_INSPECTOR_OPTIONS: PdfInspectorOptions = {
  budgetMillis: 5_000,
  maxOldGenerationSizeMb: 32,
  concurrency: 2
}

const structureModule = pathToFileURL(createRequire(import.meta.url).resolve("@propline/signing/PdfStructure")).href

// Only dynamic imports, so the script runs whether Node reads it as CommonJS (as `eval` workers run) or as a module
// (a parent started with `--input-type=module` passes that on). Posts the digest as soon as it has it, then the
// structure.
const WORKER_SCRIPT = `
Promise.all([import("node:worker_threads"), import("node:crypto")]).then(async ([threads, crypto]) => {
  const { bytes, structureModule } = threads.workerData
  threads.parentPort.postMessage({ sha256: crypto.createHash("sha256").update(bytes).digest("hex") })
  const { readPdfStructure } = await import(structureModule)
  threads.parentPort.postMessage({ structure: readPdfStructure(bytes) })
})
`

type WorkerMessage = { readonly sha256: string } | { readonly structure: PdfStructure }

/** Runs one inspection in a new worker; resolves with what it finished, never fails. */
const inspectInWorker = (bytes: Uint8Array, options: PdfInspectorOptions): Effect.Effect<DocumentInspection> =>
  Effect.async<DocumentInspection>((resume) => {
    // The worker gets its own copy, moved to it rather than cloned; the caller keeps `bytes` to store. Not
    // `bytes.slice()`: on a Buffer that is a view of the same memory, and moving it would empty the caller's bytes.
    const copy = new Uint8Array(bytes)
    const sizeBytes = bytes.length
    let sha256: string | undefined
    let settled = false
    const worker = new Worker(WORKER_SCRIPT, {
      eval: true,
      workerData: { bytes: copy, structureModule },
      transferList: [copy.buffer],
      resourceLimits: {
        maxOldGenerationSizeMb: options.maxOldGenerationSizeMb,
        maxYoungGenerationSizeMb: 8,
        codeRangeSizeMb: 16,
        stackSizeMb: 4
      },
      stdout: true,
      stderr: true
    })
    const finish = (inspection: DocumentInspection, why?: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void worker.terminate()
      resume(
        why === undefined
          ? Effect.succeed(inspection)
          : Effect.as(Effect.logWarning(`PDF inspection of ${sizeBytes} bytes unfinished: ${why}`), inspection)
      )
    }
    const unfinished = (why: string) =>
      finish(sha256 === undefined ? { sizeBytes } : { sizeBytes, sha256 }, why)
    const timer = setTimeout(() => unfinished(`over its ${options.budgetMillis} ms budget`), options.budgetMillis)
    worker.on("message", (message: WorkerMessage) => {
      if ("sha256" in message) sha256 = message.sha256
      else if (sha256 !== undefined) finish({ sizeBytes, sha256, structure: message.structure })
    })
    worker.on("error", (error) => unfinished(String(error)))
    worker.on("exit", (code) => unfinished(`the worker exited (${code})`))
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      void worker.terminate()
    })
  })

/** Builds the inspector with the given bounds (the default layer uses {@link DEFAULT_PDF_INSPECTOR_OPTIONS}). */
export const makePdfInspector = (options: PdfInspectorOptions) =>
  Effect.map(Effect.makeSemaphore(options.concurrency), (semaphore) => ({
    /**
     * The {@link DocumentInspection} of an uploaded body: `sizeBytes` always; `sha256` (lower-case hex) and
     * `structure` when the worker finished them within the budget and memory bound. Never fails.
     */
    inspect: (bytes: Uint8Array): Effect.Effect<DocumentInspection> =>
      semaphore.withPermits(1)(inspectInWorker(bytes, options)).pipe(
        Effect.withSpan("PdfInspector.inspect", { captureStackTrace: false, attributes: { bytes: bytes.length } })
      )
  }))

export class PdfInspector extends Effect.Service<PdfInspector>()("@propline/api/signing/PdfInspector", {
  effect: makePdfInspector(DEFAULT_PDF_INSPECTOR_OPTIONS)
}) {}
