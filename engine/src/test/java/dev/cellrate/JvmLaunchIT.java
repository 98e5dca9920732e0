package dev.cellrate;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged engine as users run it (an integration test: it needs the jar with its module descriptor),
 * each in a JVM of its own: on the module path, where only the API packages are
 * exported, and on the class path without the Agrona option, where the first use names the option.
 */
final class JvmLaunchIT
{
    @Test
    void onTheModulePathOnlyTheApiPackagesAreExported() throws Exception
    {
        final String engineJar = engineJar();
        final String modulePath = engineJar + File.pathSeparator + jar("agrona") + File.pathSeparator + jar("jctools");
        final String output = run(List.of(
            "--module-path", modulePath,
            "--add-modules", "dev.cellrate",
            "--add-exports", "java.base/jdk.internal.misc=org.agrona",
            "-cp", testClasses(),
            "probe.ModuleProbe"));
        assertTrue(output.contains("module dev.cellrate"), output);
        assertTrue(output.contains("exports [dev.cellrate, dev.cellrate.composite, dev.cellrate.concurrency, dev.cellrate.hash, dev.cellrate.http, " +
            "dev.cellrate.observe, dev.cellrate.reconfigure, dev.cellrate.release, dev.cellrate.stat, " +
            "dev.cellrate.tcm, dev.cellrate.translate, dev.cellrate.warmup, dev.cellrate.window]"),
            output);
        assertTrue(output.contains("decision ADMITTED 100000000"), output);
        // the exported hash on the module path: a reference vector; one empty part is its 4-byte length, 0
        assertTrue(output.contains("hash a129ca6149be45e5, empty part framed true"), output);
        assertTrue(output.contains("dry-run pass 0 0 true 5000 0"), output);
        assertTrue(output.contains("backlog sampled"), output);
        assertTrue(output.contains("table hidden"), output);
        assertTrue(output.contains("gcra hidden"), output);
    }

    @Test
    void withoutTheJvmOptionTheFirstUseNamesIt() throws Exception
    {
        final String output = run(List.of("-cp", System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path")), "probe.FlagProbe"));
        assertTrue(output.contains("error: cellrate needs the JVM option " + dev.cellrate.JvmOption.ADD_EXPORTS), output);
        assertEquals("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", dev.cellrate.JvmOption.ADD_EXPORTS);
    }

    private static String run(final List<String> args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(args);
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the probe JVM finished");
        assertEquals(0, process.exitValue(), output);
        return output;
    }

    private static String engineJar() throws Exception
    {
        final File target = Path.of(JvmLaunchIT.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .getParent().toFile();
        final File[] jars = target.listFiles((dir, name) -> name.startsWith("cellrate-engine-") &&
            name.endsWith(".jar") && !name.contains("tests") && !name.contains("sources"));
        assertTrue(null != jars && 1 == jars.length, "one engine jar in " + target);
        return jars[0].toString();
    }

    private static String jar(final String name)
    {
        for (final String entry : classPath())
        {
            if (entry.contains(name) && entry.endsWith(".jar"))
            {
                return entry;
            }
        }
        throw new AssertionError(name + " not on the test class path");
    }

    private static String testClasses() throws Exception
    {
        return Path.of(JvmLaunchIT.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static String[] classPath()
    {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
            .split(File.pathSeparator);
    }
}
