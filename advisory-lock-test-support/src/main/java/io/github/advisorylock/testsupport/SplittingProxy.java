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

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback that sends each new connection to the next of several
 * PostgreSQL servers in turn, as a load balancer that spreads sessions does: a session
 * there holds its locks on one server, and the next session asks another. Closing it
 * closes every connection through it.
 */
public final class SplittingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final InetSocketAddress[] targets;

	private final AtomicInteger connections = new AtomicInteger();

	private final List<Socket> sockets = new ArrayList<>();

	private volatile boolean closed;

	/**
	 * Start the proxy on a free port of the loopback address.
	 * @param targets the servers that take turns
	 * @throws IOException if no port can be opened
	 */
	public SplittingProxy(InetSocketAddress... targets) throws IOException {
		this.targets = targets.clone();
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		daemon(this::accept, "splitting-proxy-" + this.server.getLocalPort());
	}

	/**
	 * Return the port the proxy listens on, on the loopback address.
	 * @return the port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Return how many connections the proxy has sent on.
	 * @return the count
	 */
	public int connections() {
		return this.connections.get();
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				InetSocketAddress target = this.targets[this.connections.getAndIncrement() % this.targets.length];
				Socket upstream;
				try {
					upstream = new Socket(target.getAddress(), target.getPort());
				}
				catch (IOException ex) {
					client.close();
					continue;
				}
				synchronized (this.sockets) {
					this.sockets.add(client);
					this.sockets.add(upstream);
				}
				daemon(() -> pump(client, upstream), "splitting-proxy-up");
				daemon(() -> pump(upstream, client), "splitting-proxy-down");
			}
			catch (IOException ex) {
				// Closed: the loop ends.
			}
		}
	}

	private static void pump(Socket from, Socket to) {
		byte[] buffer = new byte[8192];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			int read;
			while ((read = in.read(buffer)) >= 0) {
				out.write(buffer, 0, read);
				out.flush();
			}
		}
		catch (IOException ex) {
			// One side closed: the other is closed below.
		}
		finally {
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Already closed.
		}
	}

	private static void daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.closed = true;
		this.server.close();
		synchronized (this.sockets) {
			this.sockets.forEach(SplittingProxy::closeQuietly);
			this.sockets.clear();
		}
	}

}
