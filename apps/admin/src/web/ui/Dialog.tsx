/**
 * The console's in-page dialog (issue 25, item 2): a change that approves, cancels, deletes, revokes or declines
 * asks first, naming what will happen, in a modal `role="dialog"` (WAI-ARIA dialog pattern: `aria-modal`, labelled
 * by its heading, the rest of the page inert, Tab and Shift+Tab kept inside, Escape cancels, focus back on what
 * opened it) — never `window.confirm` or `window.prompt`, which can't be styled, read the page's language or be
 * tested. A dialog may ask for one text (a decline's reason) that it requires before it confirms.
 *
 * Pages ask through {@link useDialog}: `await dialog.confirm({...})` answers true or false, `await dialog.ask({...})`
 * the text or undefined; {@link DialogProvider} (around the console) draws the one open dialog.
 */
import { createContext, type KeyboardEvent, type ReactNode, useCallback, useContext, useEffect, useId, useMemo, useRef, useState } from "react"
import { createPortal } from "react-dom"

/** What a dialog says: its title (a question), what will happen, and the confirming button's words. */
export interface ConfirmOptions {
  readonly title: ReactNode
  /** What will happen, in a sentence or two: the records it changes and whether it can be undone. */
  readonly body?: ReactNode
  /** The confirming button ("Approve the run", "Delete invoice 1042"). */
  readonly confirm: string
  /** `danger` for a change that can't be undone. */
  readonly tone?: "danger"
}

/** A dialog that asks for one text before it confirms (a decline's reason). */
export interface AskOptions extends ConfirmOptions {
  readonly label: string
  readonly hint?: string
  /** The longest text the API takes. */
  readonly maxLength: number
  /** The sentence shown when the text is empty. */
  readonly required: string
}

interface Open {
  readonly options: ConfirmOptions | AskOptions
  readonly resolve: (answer: string | undefined) => void
}

interface DialogApi {
  readonly confirm: (options: ConfirmOptions) => Promise<boolean>
  readonly ask: (options: AskOptions) => Promise<string | undefined>
}

const DialogContext = createContext<DialogApi | undefined>(undefined)

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/** Keeps Tab and Shift+Tab inside `container` (the dialog's focus trap). */
const trapTab = (event: KeyboardEvent<HTMLElement>, container: HTMLElement | null) => {
  if (event.key !== "Tab" || container === null) return
  const focusable = [...container.querySelectorAll<HTMLElement>(FOCUSABLE)]
  if (focusable.length === 0) return
  const first = focusable[0]!
  const last = focusable[focusable.length - 1]!
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault()
    last.focus()
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault()
    first.focus()
  }
}

const DialogView = ({ open, close }: { readonly open: Open; readonly close: (answer: string | undefined) => void }) => {
  const id = useId()
  const { options } = open
  const asks = "label" in options
  const box = useRef<HTMLDivElement>(null)
  const cancel = useRef<HTMLButtonElement>(null)
  const field = useRef<HTMLTextAreaElement>(null)
  const [text, setText] = useState("")
  const [missing, setMissing] = useState(false)
  useEffect(() => {
    // A question starts on "Cancel" (Enter does nothing harmful); a question with a text starts in the text.
    if (asks) field.current?.focus()
    else cancel.current?.focus()
  }, [asks])
  const confirm = () => {
    if (!asks) return close("")
    if (text.trim() === "") {
      setMissing(true)
      field.current?.focus()
      return
    }
    close(text.trim())
  }
  const describedBy = [options.body === undefined ? undefined : `${id}-body`, asks && missing ? `${id}-error` : undefined].filter(Boolean).join(" ")
  return (
    <div className="dialog-backdrop">
      <div
        ref={box}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        {...(options.body === undefined ? {} : { "aria-describedby": `${id}-body` })}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault()
            close(undefined)
          } else trapTab(event, box.current)
        }}
      >
        <h2 id={`${id}-title`}>{options.title}</h2>
        {options.body === undefined ? null : <div id={`${id}-body`}>{options.body}</div>}
        {asks ? (
          <div className={missing ? "field field-invalid" : "field"}>
            <label htmlFor={`${id}-text`}>{options.label}</label>
            {options.hint === undefined ? null : <p className="hint">{options.hint}</p>}
            <textarea
              ref={field}
              id={`${id}-text`}
              rows={3}
              maxLength={options.maxLength}
              value={text}
              onChange={(event) => {
                setText(event.target.value)
                if (event.target.value.trim() !== "") setMissing(false)
              }}
              {...(describedBy === "" ? {} : { "aria-describedby": describedBy })}
              {...(missing ? { "aria-invalid": true } : {})}
            />
            {missing ? (
              <p className="field-error" id={`${id}-error`}>
                {options.required}
              </p>
            ) : null}
          </div>
        ) : null}
        <div className="actions">
          <button type="button" className={options.tone} onClick={confirm}>
            {options.confirm}
          </button>
          <button ref={cancel} type="button" className="secondary" onClick={() => close(undefined)}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  )
}

/** Draws the open dialog over the console, with the console itself inert meanwhile. */
export const DialogProvider = ({ children }: { readonly children: ReactNode }) => {
  const [open, setOpen] = useState<Open | undefined>()
  const opener = useRef<Element | null>(null)
  const show = useCallback(
    (options: ConfirmOptions | AskOptions) =>
      new Promise<string | undefined>((resolve) => {
        opener.current = document.activeElement
        setOpen({ options, resolve })
      }),
    []
  )
  const api = useMemo<DialogApi>(
    () => ({
      confirm: (options) => show(options).then((answer) => answer !== undefined),
      ask: (options) => show(options)
    }),
    [show]
  )
  const close = (answer: string | undefined) => {
    open?.resolve(answer)
    setOpen(undefined)
  }
  const isOpen = open !== undefined
  useEffect(() => {
    const root = document.getElementById("root")
    if (root !== null) root.inert = isOpen
    if (!isOpen) {
      // Focus goes back to what opened the dialog, once the console is no longer inert.
      const back = opener.current
      opener.current = null
      if (back instanceof HTMLElement && back.isConnected) back.focus()
    }
  }, [isOpen])
  return (
    <DialogContext.Provider value={api}>
      {children}
      {open === undefined ? null : createPortal(<DialogView open={open} close={close} />, document.body)}
    </DialogContext.Provider>
  )
}

/** The console's dialogs: `confirm` (true when confirmed) and `ask` (the text, or undefined when cancelled). */
export const useDialog = (): DialogApi => {
  const api = useContext(DialogContext)
  if (api === undefined) throw new Error("useDialog outside DialogProvider")
  return api
}
