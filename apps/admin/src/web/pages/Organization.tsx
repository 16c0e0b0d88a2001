/** The organization: its facts, how many records it holds, and the operational-context tree. */
import type { ContextNode } from "@propline/contract/OrganizationAdmin"
import { call } from "../api.js"
import { When } from "../ui/Time.js"
import { useLoad } from "../session.js"
import { Facts, Loading, PageHeader, ProblemNotice } from "../ui.js"

const Tree = ({ nodes, parentId }: { readonly nodes: ReadonlyArray<ContextNode>; readonly parentId: string | null }) => {
  const children = nodes.filter((node) => node.parentId === parentId)
  if (children.length === 0) return null
  return (
    <ul className={parentId === null ? "tree" : undefined}>
      {children.map((node) => (
        <li key={node.id}>
          <span className="tree-node">
            <span className="kind">{node.kind}</span> {node.name}
          </span>
          <Tree nodes={nodes} parentId={node.id} />
        </li>
      ))}
    </ul>
  )
}

export const OrganizationPage = () => {
  const { load } = useLoad("organization", () => call((client) => client.organization.get()))
  return (
    <>
      <PageHeader title="Organization" />
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loaded" ? (
        <>
          <section aria-labelledby="org-facts">
            <h2 id="org-facts">{load.value.organization.name}</h2>
            <Facts
              items={[
                ["Country", load.value.organization.country],
                ["Customers", load.value.counts.customers],
                ["Contracts", load.value.counts.contracts],
                ["Applications", load.value.counts.applications],
                ["Operators", load.value.counts.operators],
                ["Contexts", load.value.contexts.length],
                ["Since", <When at={load.value.contexts[0]?.createdAt} />]
              ]}
            />
          </section>
          <section aria-labelledby="org-tree">
            <h2 id="org-tree">Operational contexts</h2>
            <p className="hint">A grant on a context includes every context below it.</p>
            <Tree nodes={load.value.contexts} parentId={null} />
          </section>
        </>
      ) : null}
    </>
  )
}
