/**
 * The billing overview's pictures (issue 25, item 6): invoiced, paid and overdue per month (grouped bars, one chart
 * per currency) and the overdue balance by age (1–30, 31–60, 61–90, over 90 days), drawn with Chart.js, each with
 * its figures in a table for screen readers and copying.
 */
import type { BillingCharts as Charts, OverdueAge } from "@propline/contract/PicturesAdmin"
import type { ChartConfiguration } from "chart.js"
import { useMemo } from "react"
import { call } from "../api.js"
import { ChartCanvas, SERIES_COLOURS } from "../charts.js"
import { money } from "../format.js"
import { Money } from "../ui/Money.js"
import { useLoad } from "../session.js"
import { Loading, ProblemNotice, Table } from "../ui.js"

const AGES: ReadonlyArray<OverdueAge> = ["1-30", "31-60", "61-90", "90+"]
const ageLabel = (age: OverdueAge) => (age === "90+" ? "over 90 days" : `${age} days`)

const major = (minorUnits: number, currency: string) => minorUnits / 10 ** (new Intl.NumberFormat(undefined, { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2)

const monthName = (month: string) =>
  new Intl.DateTimeFormat(undefined, { month: "short", year: "2-digit", timeZone: "UTC" }).format(new Date(`${month}-01T00:00:00Z`))

const moneyTicks = (currency: string) => ({ callback: (value: string | number) => money(Number(value) * 100, currency).replace(/[.,]00(?=\D*$)/, "") })

const MonthChart = ({ charts, currency }: { readonly charts: Charts; readonly currency: string }) => {
  const config = useMemo<ChartConfiguration<"bar">>(() => {
    const of = (key: "invoicedMinorUnits" | "paidMinorUnits" | "overdueMinorUnits") =>
      charts.months.map((month) => major(charts.figures.find((row) => row.month === month && row.currency === currency)?.[key] ?? 0, currency))
    return {
      type: "bar",
      data: {
        labels: charts.months.map(monthName),
        datasets: [
          { label: "Invoiced", data: of("invoicedMinorUnits"), backgroundColor: SERIES_COLOURS.invoiced },
          { label: "Paid", data: of("paidMinorUnits"), backgroundColor: SERIES_COLOURS.paid },
          { label: "Overdue", data: of("overdueMinorUnits"), backgroundColor: SERIES_COLOURS.overdue }
        ]
      },
      options: { scales: { y: { beginAtZero: true, ticks: moneyTicks(currency) } }, plugins: { legend: { position: "bottom" } } }
    }
  }, [charts, currency])
  return (
    <figure className="chart">
      <ChartCanvas config={config} height={280} label={`Invoiced, paid and overdue per month in ${currency}; the figures are in the table below.`} />
      <figcaption>Per month, {currency}</figcaption>
    </figure>
  )
}

const AgeChart = ({ charts, currency }: { readonly charts: Charts; readonly currency: string }) => {
  const config = useMemo<ChartConfiguration<"bar">>(
    () => ({
      type: "bar",
      data: {
        labels: AGES.map(ageLabel),
        datasets: [
          {
            label: `Overdue balance (${currency})`,
            data: AGES.map((age) => major(charts.overdueByAge.find((row) => row.currency === currency && row.age === age)?.balanceMinorUnits ?? 0, currency)),
            backgroundColor: SERIES_COLOURS.overdue
          }
        ]
      },
      options: { indexAxis: "y", scales: { x: { beginAtZero: true, ticks: moneyTicks(currency) } }, plugins: { legend: { display: false } } }
    }),
    [charts, currency]
  )
  return (
    <figure className="chart">
      <ChartCanvas config={config} height={200} label={`Overdue balance by days past due in ${currency}; the figures are in the table below.`} />
      <figcaption>Overdue by age, {currency}</figcaption>
    </figure>
  )
}

export const BillingChartsSection = () => {
  const { load } = useLoad("billing charts", () => call((client) => client.billingCharts.billingCharts({ urlParams: {} })))
  if (load._tag === "loading") return <Loading />
  if (load._tag === "failed") return <ProblemNotice problem={load.problem} />
  const charts = load.value
  const currencies = [...new Set([...charts.figures.map((row) => row.currency), ...charts.overdueByAge.map((row) => row.currency)])].sort()
  return (
    <section aria-labelledby="charts-heading">
      <h2 id="charts-heading">The last {charts.months.length} months</h2>
      {currencies.length === 0 ? <p>Nothing invoiced, paid or overdue in these months.</p> : null}
      {currencies.map((currency) => (
        <div key={currency} className="charts">
          <MonthChart charts={charts} currency={currency} />
          <AgeChart charts={charts} currency={currency} />
        </div>
      ))}
      {currencies.length === 0 ? null : (
        <>
          <Table caption="Invoiced, paid and overdue per month" head={["Month", "Currency", "Invoiced", "Paid", "Overdue"]}>
            {charts.figures.map((row) => (
              <tr key={`${row.month} ${row.currency}`}>
                <td>{row.month}</td>
                <td>{row.currency}</td>
                <td className="number"><Money minorUnits={row.invoicedMinorUnits} currency={row.currency} /></td>
                <td className="number"><Money minorUnits={row.paidMinorUnits} currency={row.currency} /></td>
                <td className="number"><Money minorUnits={row.overdueMinorUnits} currency={row.currency} /></td>
              </tr>
            ))}
          </Table>
          <Table caption="Overdue by days past due" head={["Currency", "Days past due", "Invoices", "Balance"]}>
            {charts.overdueByAge.length === 0 ? (
              <tr>
                <td colSpan={4}>Nothing is overdue.</td>
              </tr>
            ) : (
              charts.overdueByAge.map((row) => (
                <tr key={`${row.currency} ${row.age}`}>
                  <td>{row.currency}</td>
                  <td>{ageLabel(row.age)}</td>
                  <td className="number">{row.count}</td>
                  <td className="number"><Money minorUnits={row.balanceMinorUnits} currency={row.currency} /></td>
                </tr>
              ))
            )}
          </Table>
        </>
      )}
    </section>
  )
}
