// The estimator lives in shared/ so the stores below the context stage count with the same rule.
export { estimateTokens } from '../../shared/estimate-tokens.js'
