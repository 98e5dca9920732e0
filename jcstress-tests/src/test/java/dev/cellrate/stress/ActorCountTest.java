package dev.cellrate.stress;

import org.junit.jupiter.api.Test;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * jcstress silently skips a test with more actors than CPUs ("No scheduling is possible"), and CI has 2 CPUs:
 * such a test would pass without running. Every stress test here must therefore have 1 or 2 actors.
 */
class ActorCountTest
{
    static final int MAX_ACTORS = 2;

    @Test
    void everyStressTestFitsOnTwoCpus() throws Exception
    {
        final List<String> tooMany = new ArrayList<>();
        int tests = 0;
        for (final Class<?> type : stressClasses())
        {
            if (!type.isAnnotationPresent(JCStressTest.class))
            {
                continue;
            }
            tests++;
            int actors = 0;
            for (final Method method : type.getMethods())
            {
                if (method.isAnnotationPresent(Actor.class))
                {
                    actors++;
                }
            }
            if (actors < 1 || actors > MAX_ACTORS)
            {
                tooMany.add(type.getName() + " has " + actors + " actors");
            }
        }
        assertTrue(tests > 0, "no @JCStressTest classes found under target/classes");
        assertEquals(List.of(), tooMany, "jcstress tests must have 1.." + MAX_ACTORS + " actors to run on 2 CPUs");
    }

    static List<Class<?>> stressClasses() throws IOException, ClassNotFoundException
    {
        final Path root = Paths.get("target", "classes");
        final List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root))
        {
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                final String name = root.relativize(file).toString();
                if (name.endsWith(".class") && name.startsWith("dev"))
                {
                    final String className = name.substring(0, name.length() - ".class".length())
                        .replace(java.io.File.separatorChar, '.');
                    classes.add(Class.forName(className, false, ActorCountTest.class.getClassLoader()));
                }
            }
        }
        return classes;
    }
}
