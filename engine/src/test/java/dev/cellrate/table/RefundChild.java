package dev.cellrate.table;

import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A child JVM with a keyed shaper on a one-slot table file ({@link MappedRefundAbaTest#shaperOn}): reserves
 * {@code args[2]} permits of key 1 at {@code args[1]} and prints {@code reserved CODE}, then waits for a line on
 * its standard input, cancels the reservation at the same instant and prints {@code cancelled true|false}. It
 * exits after 60 s whatever happens.
 */
public final class RefundChild
{
    private RefundChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Thread watchdog = new Thread(() ->
        {
            try
            {
                Thread.sleep(60_000);
            }
            catch (final InterruptedException ignored)
            {
                // exit anyway
            }
            System.exit(4); // never outlive a parent that stopped talking
        });
        watchdog.setDaemon(true);
        watchdog.start();
        final KeyedShaper shaper = MappedRefundAbaTest.shaperOn(Path.of(args[0]));
        final long nowNs = Long.parseLong(args[1]);
        final Reservation reservation = new Reservation();
        System.out.println("reserved " + shaper.reserve(MappedRefundAbaTest.KEY_A, Long.parseLong(args[2]), nowNs,
            reservation));
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (null == in.readLine())
        {
            System.exit(3);
        }
        System.out.println("cancelled " + shaper.cancel(MappedRefundAbaTest.KEY_A, reservation, nowNs));
        System.out.flush();
    }
}
