/**
 * Engines joined by one Redis, as two servers would be: each opens with its own cluster connection,
 * and all close together at the end of the file.
 */
import { type Cluster, connectCluster } from '../../src/cluster/connect-cluster.js'
import type { CharpipeConfig } from '../../src/config/schema.js'
import { type CreateCharpipeOptions, createCharpipe } from '../../src/engine/create-charpipe.js'
import type { Charpipe } from '../../src/engine/types.js'
import type { Logger } from '../../src/shared/logger.js'

export interface ClusterEngines {
  open(
    config: CharpipeConfig,
    options: Omit<CreateCharpipeOptions, 'cluster' | 'logger'>,
  ): Promise<{ charpipe: Charpipe; cluster: Cluster }>
  closeAll(): Promise<void>
}

export function openClusterEngines(logger: Logger): ClusterEngines {
  const opened: { charpipe: Charpipe; cluster: Cluster }[] = []
  return {
    open: async (config, options) => {
      const cluster = await connectCluster(config, logger)
      const charpipe = await createCharpipe(config, { ...options, cluster, logger })
      opened.push({ charpipe, cluster })
      return { charpipe, cluster }
    },
    closeAll: async () => {
      for (const { charpipe, cluster } of opened) {
        await charpipe.close()
        await cluster.close()
      }
    },
  }
}
