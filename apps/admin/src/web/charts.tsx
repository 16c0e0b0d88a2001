/**
 * Charts drawn by Chart.js (issue 25, item 6) into a `<canvas>`: no inline script or style attribute, so the
 * console's strict Content-Security-Policy holds (Chart.js sizes the canvas through the CSSOM, which CSP allows).
 * Only the parts used are registered, which keeps the bundle small. Each chart has a text alternative (`label`),
 * and the page shows its figures in a table beside it.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  type ChartType,
  type DefaultDataPoint,
  Legend,
  LinearScale,
  Tooltip
} from "chart.js"
import { useEffect, useRef } from "react"

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip)
Chart.defaults.font.family = "system-ui, sans-serif"
Chart.defaults.color = "#333"

/** Colours with enough contrast on white, one per series. */
export const SERIES_COLOURS = { invoiced: "#1f5fa8", paid: "#2e7d32", overdue: "#b3261e", hold: "#8a6d00" } as const

/** A chart of `config` in a canvas `height` px high (its width follows the container); `label` describes it. */
export const ChartCanvas = <T extends ChartType, D = DefaultDataPoint<T>>({
  config,
  label,
  height
}: {
  readonly config: ChartConfiguration<T, D>
  readonly label: string
  readonly height: number
}) => {
  const canvas = useRef<HTMLCanvasElement>(null)
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    // Set through the CSSOM, which the CSP allows (a style attribute in the markup it would refuse).
    if (box.current !== null) box.current.style.height = `${height}px`
  }, [height])
  useEffect(() => {
    if (canvas.current === null) return
    const chart = new Chart(canvas.current, {
      ...config,
      options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options }
    } as ChartConfiguration<T, D>)
    return () => chart.destroy()
  }, [config])
  return (
    <div className="chart-box" ref={box}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  )
}
