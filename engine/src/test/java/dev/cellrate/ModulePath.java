package dev.cellrate;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An integration built and run as users on the module path build and run it: its sources compiled against the
 * packaged engine as the named module {@code dev.cellrate} (so only the exported packages are visible: a use of
 * an unexported package does not compile), and its code run in a JVM where the engine is that module. For the
 * integrations' module-path integration tests (run by failsafe after the engine's jar is packaged).
 */
public final class ModulePath
{
    private ModulePath()
    {
    }

    /**
     * @return the packaged engine, Agrona and JCTools jars, from this JVM's class path.
     */
    public static String modulePath()
    {
        return String.join(File.pathSeparator, engineJar(), jar("agrona-"), jar("jctools-core-"));
    }

    /**
     * @return every class-path entry of this JVM except the engine (its jar, its test jar, its classes) and its
     * two dependencies, which are on the module path.
     */
    public static String classPathWithoutEngine()
    {
        final List<String> entries = new ArrayList<>();
        for (final String entry : classPath())
        {
            final String name = Path.of(entry).getFileName().toString();
            if (!entry.contains("cellrate-engine") && !entry.contains("/engine/target/") &&
                !name.startsWith("agrona-") && !name.startsWith("jctools-core-"))
            {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /**
     * Compile {@code sourceRoots} on the module path.
     *
     * @param out         the directory for the classes.
     * @param sourceRoots the integration's source directories.
     * @return javac's errors, one line each; empty when it compiled.
     * @throws IOException if the sources cannot be listed.
     */
    public static List<String> compile(final Path out, final Path... sourceRoots) throws IOException
    {
        final List<File> sources = new ArrayList<>();
        for (final Path root : sourceRoots)
        {
            try (Stream<Path> walk = Files.walk(root))
            {
                walk.filter(p -> p.toString().endsWith(".java")).forEach(p -> sources.add(p.toFile()));
            }
        }
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8))
        {
            Files.createDirectories(out);
            final List<String> options = List.of("-d", out.toString(), "-proc:none", "--release", "17",
                "--module-path", modulePath(), "--add-modules", "dev.cellrate", "-cp", classPathWithoutEngine());
            javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromFiles(sources)).call();
        }
        final List<String> errors = new ArrayList<>();
        for (final Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics())
        {
            if (Diagnostic.Kind.ERROR == d.getKind())
            {
                errors.add(d.getSource() + ":" + d.getLineNumber() + ": " + d.getMessage(null));
            }
        }
        return errors;
    }

    /**
     * Run {@code mainClass} from {@code classes} in a JVM where the engine is the module {@code dev.cellrate}.
     *
     * @param classes   what {@link #compile} wrote.
     * @param mainClass the class to run.
     * @param args      its arguments.
     * @return its exit code and output: {@code "<code>\n<output>"}.
     * @throws Exception if it cannot be started or does not end within 60 s.
     */
    public static String run(final Path classes, final String mainClass, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--module-path", modulePath(), "--add-modules", "dev.cellrate",
            "--add-exports", "java.base/jdk.internal.misc=org.agrona",
            "-cp", classes + File.pathSeparator + classPathWithoutEngine(), mainClass));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new IllegalStateException("did not end: " + output);
        }
        return process.exitValue() + "\n" + output;
    }

    private static String engineJar()
    {
        for (final String entry : classPath())
        {
            final String name = Path.of(entry).getFileName().toString();
            if (name.startsWith("cellrate-engine-") && name.endsWith(".jar") && !name.contains("tests"))
            {
                return entry;
            }
        }
        throw new IllegalStateException("no packaged engine jar on the class path (run in verify): " + classPath());
    }

    private static String jar(final String prefix)
    {
        for (final String entry : classPath())
        {
            if (Path.of(entry).getFileName().toString().startsWith(prefix) && entry.endsWith(".jar"))
            {
                return entry;
            }
        }
        throw new IllegalStateException("no " + prefix + " jar on the class path");
    }

    private static List<String> classPath()
    {
        return List.of(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
            .split(File.pathSeparator));
    }
}
