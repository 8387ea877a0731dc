package dev.parallax.scheduler.ssmr;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.KeyTableProvider;
import dev.parallax.core.config.Settings;

import java.util.List;

/**
 * The cluster-file keys of S-SMR execution ({@code execution=s-smr}, seed 004 (S-SMR) §IV):
 * {@code ssmr.cache}, conservative caching of other partitions' variables (§IV-C,
 * {@link CachedExchange}). A {@link java.util.ServiceLoader} service; stateless and thread-safe.
 */
public final class SsmrKeys implements KeyTableProvider {
    /** {@code ssmr.cache}: on or off (the default, see docs/results/history.md "S-SMR caching"). */
    public static final ConfigKey<String> CACHE = ConfigKey.choice("ssmr.cache", "off",
            "S-SMR conservative caching (seed 004 §IV-C): a partition caches the variables other partitions sent it "
                    + "and their owners answer 'current' instead of the value; only for services that offer per-variable "
                    + "reads (kv, volery). Must be the same at every replica.", "on", "off");

    /** The table. */
    public static final KeyTable TABLE = KeyTable.of("S-SMR", CACHE);

    @Override
    public List<KeyTable> keyTables() {
        return List.of(TABLE);
    }

    /** {@code config} with the caching the settings ask for. */
    public static SsmrConfig apply(Settings settings, SsmrConfig config) {
        return config.withCache("on".equals(settings.get(CACHE)) ? SsmrCacheConfig.ON : SsmrCacheConfig.OFF);
    }
}
