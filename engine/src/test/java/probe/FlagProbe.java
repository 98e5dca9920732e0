package probe;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;

/**
 * Run by {@code JvmOptionTest} in a JVM started without the Agrona option: prints the error a user gets.
 */
public final class FlagProbe
{
    private FlagProbe()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            new RateLimiter(Limit.perSecond(10, 1));
            System.out.println("started without the option");
        }
        catch (final IllegalStateException ex)
        {
            System.out.println("error: " + ex.getMessage());
        }
    }
}
