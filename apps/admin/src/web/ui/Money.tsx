/** Money as the organization's locale writes it, with the ISO value on hover and for machines (`<data>`). */
import { isoMoney } from "../../Money.js"
import { money } from "../format.js"

/** `minorUnits` of `currency`: "7 582,50 kr" in sv-SE, titled and valued "7582.50 SEK". */
export const Money = ({ minorUnits, currency }: { readonly minorUnits: number; readonly currency: string }) => {
  const iso = isoMoney(minorUnits, currency)
  return (
    <data value={iso} title={iso}>
      {money(minorUnits, currency)}
    </data>
  )
}
