package probe;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.hash.SipHash;

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
        // SipHash-2-4 of the 15 bytes 00..0e under the key 00..0f: the reference vector 0xa129ca6149be45e5
        final SipHash sip = new SipHash(0x0706050403020100L, 0x0f0e0d0c0b0a0908L);
        final StringBuilder message = new StringBuilder();
        for (char c = 0; c < 15; c++)
        {
            message.append(c);
        }
        System.out.printf("hash %x, empty part framed %b%n", sip.hash(message.toString()),
            sip.parts().add("").finish() == sip.hash(new byte[4], 0, 4));
        // a dry-run pass written into a caller's reservation, and a shaper's backlog sampled, from the exported
        // observe and stat packages, whose fronts reach package-private members of dev.cellrate inside the module
        final dev.cellrate.stat.StatFile file = dev.cellrate.stat.StatFile.inMemory();
        final dev.cellrate.Shaper shaper = new dev.cellrate.Shaper(Limit.ofGcra(1_000, 0), dev.cellrate.ShaperMode.delay());
        final dev.cellrate.observe.ObservedReserver dry =
            dev.cellrate.observe.ObservedReserver.dryRun(shaper, file.limiter("shaper", 1, 0));
        final dev.cellrate.Reservation reservation = new dev.cellrate.Reservation();
        final long first = dry.reserve(1, 5_000);
        final long pass = dry.reserve(1, 5_000, reservation);
        System.out.println("dry-run pass " + first + " " + pass + " " + reservation.admitted() + " " +
            reservation.releaseNs() + " " + reservation.incrementNs());
        final dev.cellrate.stat.StatSampler sampler =
            new dev.cellrate.stat.StatSampler(org.agrona.concurrent.SystemNanoClock.INSTANCE, 0);
        sampler.add(shaper, file.limiter("backlog", 1, 0));
        sampler.sampleNow();
        System.out.println("backlog sampled");
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
