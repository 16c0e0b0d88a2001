import { StrictMode } from "react"
import { createRoot } from "react-dom/client"
import { App } from "./App.js"
import { RouterProvider } from "./router.js"
import { SessionProvider } from "./session.js"
import { DialogProvider } from "./ui/Dialog.js"
import "./styles.css"

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <RouterProvider>
      <SessionProvider>
        <DialogProvider>
          <App />
        </DialogProvider>
      </SessionProvider>
    </RouterProvider>
  </StrictMode>
)
