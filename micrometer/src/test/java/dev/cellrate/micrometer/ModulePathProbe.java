package dev.cellrate.micrometer;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatFile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * Run by {@code ModulePathIT} in a JVM where the engine is the module {@code dev.cellrate}: binds the metrics of
 * an in-memory statistics file and prints the admitted count a registry reads.
 */
public final class ModulePathProbe
{
    private ModulePathProbe()
    {
    }

    public static void main(final String[] args)
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("probe", 1, 4);
        for (int i = 0; i < 5; i++)
        {
            stats.record(0);
        }
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new CellrateMetrics(file.reader()).bindTo(registry);
        System.out.println("meters " + registry.getMeters().size());
        registry.getMeters().forEach(meter -> meter.measure().forEach(m ->
            System.out.println(meter.getId().getName() + " " + meter.getId().getTags() + " " + m.getValue())));
    }
}
