/**
 * Free TCP ports on 127.0.0.1 for the processes tests and scripts start: the API's test support, the harness's
 * started product and the benchmark. Beside `TestDatabase` because every one of them already depends on this
 * package, and it depends on none of them (no cycle). A port found free can be taken by another process before
 * it is bound: callers that can retry do (see `apps/api/test/support/TestApp.ts`).
 */
import { createServer } from "node:net"

/**
 * A port on 127.0.0.1 that was free when asked (another process may take it before it is bound).
 */
export const freePort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

/**
 * `count` distinct free TCP ports on 127.0.0.1 (held open together while chosen, so they differ).
 */
export const freePorts = (count: number): Promise<Array<number>> =>
  new Promise((resolve, reject) => {
    const servers = Array.from({ length: count }, () => createServer())
    const ports: Array<number> = []
    const closeAll = () => Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done()))))
    for (const server of servers) {
      server.once("error", (error) => {
        void closeAll().then(() => reject(error))
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        if (address !== null && typeof address !== "string") ports.push(address.port)
        if (ports.length === count) void closeAll().then(() => resolve(ports))
      })
    }
  })
