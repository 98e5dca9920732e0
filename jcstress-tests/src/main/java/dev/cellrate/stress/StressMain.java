package dev.cellrate.stress;

import dev.cellrate.JvmOption;
import dev.cellrate.layout.CellArray;

import java.util.Arrays;

/**
 * Entry point of {@code jcstress.jar}: jcstress's own main, with the Agrona JVM flag prepended to every
 * forked test JVM so {@code java -jar jcstress-tests/target/jcstress.jar} needs no extra flags (the manifest's
 * {@code Add-Exports} covers only this launcher JVM, not jcstress's forks).
 */
public final class StressMain
{
    static final String ADD_EXPORTS = JvmOption.ADD_EXPORTS;

    private StressMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String[] withFlag = Arrays.copyOf(new String[] {"-jvmArgsPrepend", ADD_EXPORTS}, 2 + args.length);
        System.arraycopy(args, 0, withFlag, 2, args.length);
        org.openjdk.jcstress.Main.main(withFlag);
    }
}
