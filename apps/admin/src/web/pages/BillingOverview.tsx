/**
 * The billing overview: invoices and credit notes counted and summed per status and currency, drawn as one bar chart
 * per currency (bar length: the status's gross total against the currency's largest), with the same figures in a
 * table for screen readers and copying.
 */
import type { OverviewBucket } from "@propline/contract/BillingAdmin"
import { call } from "../api.js"
import { isoMoney } from "../../Money.js"
import { money } from "../format.js"
import { Money } from "../ui/Money.js"
import { hrefWith, Link } from "../router.js"
import { useLoad } from "../session.js"
import { Loading, PageHeader, ProblemNotice, Table } from "../ui.js"
import { BillingChartsSection } from "./BillingCharts.js"

const STATUS_ORDER = ["created", "approved", "sent", "paid", "written-off", "failed"] as const

const BAR_HEIGHT = 28
const LABEL_WIDTH = 110
const CHART_WIDTH = 560

const CurrencyChart = ({ currency, buckets }: { readonly currency: string; readonly buckets: ReadonlyArray<OverviewBucket> }) => {
  const rows = STATUS_ORDER.flatMap((status) => buckets.filter((bucket) => bucket.status === status))
  const largest = Math.max(1, ...rows.map((row) => Math.abs(row.grossMinorUnits)))
  const height = rows.length * BAR_HEIGHT + 8
  const titleId = `chart-${currency}`
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${CHART_WIDTH} ${height}`}
        role="img"
        aria-labelledby={titleId}
        preserveAspectRatio="xMinYMin meet"
      >
        <title id={titleId}>{`Gross totals per status in ${currency}`}</title>
        {rows.map((row, index) => {
          const width = ((CHART_WIDTH - LABEL_WIDTH - 8) * Math.abs(row.grossMinorUnits)) / largest
          const y = index * BAR_HEIGHT + 4
          return (
            <g key={row.status}>
              <text x={0} y={y + BAR_HEIGHT / 2 + 5} className="chart-label">
                {row.status}
              </text>
              <rect x={LABEL_WIDTH} y={y + 3} width={Math.max(2, width)} height={BAR_HEIGHT - 8} rx={3} className={`bar bar-${row.status}`} />
              <text x={LABEL_WIDTH + 6} y={y + BAR_HEIGHT / 2 + 5} className="chart-value">
                {`${row.count} · ${money(row.grossMinorUnits, currency)}`}
                <title>{isoMoney(row.grossMinorUnits, currency)}</title>
              </text>
            </g>
          )
        })}
      </svg>
      <figcaption>{currency}</figcaption>
    </figure>
  )
}

export const BillingOverviewPage = () => {
  const { load } = useLoad("billing overview", () => call((client) => client.billing.overview()))
  if (load._tag === "loading") return <Loading />
  if (load._tag === "failed") return <ProblemNotice problem={load.problem} />
  const { buckets, proposalsAwaitingVerification } = load.value
  const currencies = [...new Set(buckets.map((bucket) => bucket.currency))]
  return (
    <>
      <PageHeader title="Billing overview" />
      <p>
        <Link href={hrefWith("/billing/proposals", { status: "proposed" })}>
          {proposalsAwaitingVerification} proposals await verification
        </Link>{" "}
        · <Link href={hrefWith("/billing/invoices", { status: "failed" })}>failed invoices</Link> ·{" "}
        <Link href="/billing/send-queue">the send queue</Link>
      </p>
      {currencies.length === 0 ? <p>No invoices yet.</p> : null}
      <div className="charts">
        {currencies.map((currency) => (
          <CurrencyChart key={currency} currency={currency} buckets={buckets.filter((bucket) => bucket.currency === currency)} />
        ))}
      </div>
      <BillingChartsSection />
      <h2>Figures</h2>
      <Table caption="Invoices per status and currency" head={["Currency", "Status", "Documents", "Gross total", "Balance"]}>
        {buckets.map((bucket) => (
          <tr key={`${bucket.currency} ${bucket.status}`}>
            <td>{bucket.currency}</td>
            <td>
              <Link href={hrefWith("/billing/invoices", { status: bucket.status, currency: bucket.currency })}>{bucket.status}</Link>
            </td>
            <td className="number">{bucket.count}</td>
            <td className="number"><Money minorUnits={bucket.grossMinorUnits} currency={bucket.currency} /></td>
            <td className="number"><Money minorUnits={bucket.balanceMinorUnits} currency={bucket.currency} /></td>
          </tr>
        ))}
      </Table>
    </>
  )
}
