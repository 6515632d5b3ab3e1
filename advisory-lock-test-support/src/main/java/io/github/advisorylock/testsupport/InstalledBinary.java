/*
 * Copyright 2026 the advisory-lock authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.github.advisorylock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;

/**
 * Where the tests find a program of the machine's own, such as PgBouncer or pgpool-II: a
 * path given as a system property or an environment variable, else the {@code PATH}, then
 * the directories Debian installs servers in.
 *
 * @author advisory-lock authors
 */
final class InstalledBinary {

	private InstalledBinary() {
	}

	/**
	 * Return the program's version, as its {@code --version} prints it.
	 * @param binary the program
	 * @param version what its output says, the version as the first group
	 * @param name the program's name, for the failure
	 * @return the version, such as {@code 1.18.0}
	 */
	static String version(Path binary, Pattern version, String name) {
		try {
			Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			process.waitFor(10, TimeUnit.SECONDS);
			Matcher matcher = version.matcher(output);
			if (!matcher.find()) {
				throw new IllegalStateException(binary + " --version printed no " + name + " version: " + output);
			}
			return matcher.group(1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + binary + " --version", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while asking " + name + " its version", ex);
		}
	}

	/**
	 * Fail where the run requires the program, as CI does; otherwise skip the calling
	 * test (a JUnit assumption), saying why in the build log once per program, as
	 * Surefire prints the count of skipped tests but not why.
	 * @param message why the tests do not run, naming what to install
	 * @param requirement the environment variable that requires the program, set to
	 * {@code true}
	 * @param requirementProperty the system property that requires it, read first
	 * @param reported whether the skip was said already, set here
	 * @throws IllegalStateException where the program is required
	 */
	static void skipOrFail(String message, String requirement, String requirementProperty, Logger logger,
			AtomicBoolean reported) {
		if (Boolean.parseBoolean(TestDatabase.setting(requirement, requirementProperty))) {
			throw new IllegalStateException(message + " (" + requirement + "=true forbids skipping them)");
		}
		if (reported.compareAndSet(false, true)) {
			logger.warn("{}; skipping them", message);
		}
		Assumptions.abort(message);
	}

	/**
	 * Return the program, if one is installed.
	 * @param name the executable's name
	 * @param environmentVariable the environment variable that may name its path
	 * @param systemProperty the system property that may name its path, read first
	 * @return its path
	 * @throws IllegalStateException if the setting names no executable file
	 */
	static Optional<Path> find(String name, String environmentVariable, String systemProperty) {
		String configured = TestDatabase.setting(environmentVariable, systemProperty);
		if (configured != null) {
			if (!Files.isExecutable(Path.of(configured))) {
				throw new IllegalStateException(systemProperty + " (" + environmentVariable + ") names " + configured
						+ ", which is not an executable file");
			}
			return Optional.of(Path.of(configured));
		}
		List<String> directories = new ArrayList<>(
				List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
		// Debian installs servers in /usr/sbin, which is not on an unprivileged user's
		// PATH.
		directories.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/usr/local/bin"));
		return directories.stream()
			.filter((directory) -> !directory.isBlank())
			.map((directory) -> Path.of(directory, name))
			.filter(Files::isExecutable)
			.findFirst();
	}

}
