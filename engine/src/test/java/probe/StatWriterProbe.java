package probe;

import dev.cellrate.stat.StatFile;

import java.nio.file.Path;

/**
 * Run by {@code SecondWriterTest} in a JVM of its own: a live statistics writer on the directory {@code args[0]}
 * that prints {@code writing} once its file exists, then waits for its standard input to close.
 */
public final class StatWriterProbe
{
    private StatWriterProbe()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (StatFile file = StatFile.create(Path.of(args[0]), 16, 1024))
        {
            file.limiter("first", 1, 0).record(0);
            System.out.println("writing");
            System.out.flush();
            while (System.in.read() >= 0)
            {
                Thread.onSpinWait();
            }
        }
    }
}
