package dev.cellrate.netty;

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
 * The packaged module as a modular application runs it (an integration test: it needs the jars with their
 * module descriptors): {@code dev.cellrate.netty}, the engine, Agrona, JCTools and Netty on the module path,
 * in a JVM of its own; the handler decides three requests.
 */
final class ModulePathIT
{
    @Test
    void theHandlerRunsOnTheModulePath() throws Exception
    {
        final List<String> modulePath = new ArrayList<>();
        modulePath.add(ownJar());
        for (final String entry : classPath())
        {
            final String name = Path.of(entry).getFileName().toString();
            if (entry.endsWith(".jar") && (name.startsWith("cellrate-engine-") || name.startsWith("agrona-") ||
                name.startsWith("jctools-core-") || (entry.contains("/io/netty/") && name.startsWith("netty-"))))
            {
                modulePath.add(entry);
            }
        }
        final List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--module-path", String.join(File.pathSeparator, modulePath),
            "--add-modules", "dev.cellrate.netty",
            "--add-exports", "java.base/jdk.internal.misc=org.agrona",
            "-cp", testClasses(),
            "probe.NettyModuleProbe");
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the probe JVM finished");
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("module dev.cellrate.netty"), output);
        assertTrue(output.contains("statuses 200 200 429"), output);
    }

    private static String ownJar() throws Exception
    {
        final File target = Path.of(testClasses()).getParent().toFile();
        final File[] jars = target.listFiles((dir, name) -> name.startsWith("cellrate-netty-") &&
            name.endsWith(".jar") && !name.contains("tests") && !name.contains("sources"));
        assertTrue(null != jars && 1 == jars.length, "one cellrate-netty jar in " + target);
        return jars[0].toString();
    }

    private static String testClasses() throws Exception
    {
        return Path.of(ModulePathIT.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static String[] classPath()
    {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
            .split(File.pathSeparator);
    }
}
