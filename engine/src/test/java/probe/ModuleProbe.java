package probe;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;

import java.util.TreeSet;

/**
 * Run by {@code JvmLaunchIT} in a JVM of its own, with the engine on the module path and this class on the
 * class path: prints what a user of the module sees.
 */
public final class ModuleProbe
{
    private ModuleProbe()
    {
    }

    public static void main(final String[] args)
    {
        final Module module = RateLimiter.class.getModule();
        System.out.println("module " + module.getName());
        System.out.println("exports " + new TreeSet<>(module.getDescriptor().exports().stream()
            .map(e -> e.source()).toList()));
        final RateLimiter limiter = new RateLimiter(Limit.perSecond(10, 1));
        System.out.println("decision " + Result.name(limiter.tryAcquire(1, 0)) + " " + limiter.tryAcquire(1, 0));
        try
        {
            new dev.cellrate.table.SlotTable(1, 64, 4, 1_000, 1);
            System.out.println("table reachable");
        }
        catch (final IllegalAccessError expected)
        {
            System.out.println("table hidden");
        }
        try
        {
            System.out.println("gcra reachable " + dev.cellrate.gcra.Gcra.lagNs(5, 0));
        }
        catch (final IllegalAccessError expected)
        {
            System.out.println("gcra hidden");
        }
    }
}
