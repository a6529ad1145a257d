/** Entry of the web page bundle (built by `scripts/build-web.ts` into `dist/web/app.js`). */
import { render } from 'preact'
import { App } from './app.js'
import './styles.css'

const root = document.getElementById('app')
if (root) {
  root.textContent = ''
  render(<App />, root)
}
