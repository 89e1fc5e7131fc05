#!/bin/sh
# nginx-conf.sh DIR PORT - the nginx configuration the live tests and benchmarks run: a master
# and 2 workers on 127.0.0.1:PORT answering every request with a constant reply, all its files
# under DIR (DIR/nginx for its temporary paths), in the foreground, no access log.
dir=$1 port=$2
cat <<CONF
worker_processes 2;
daemon off;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $dir/nginx/body;
	proxy_temp_path $dir/nginx/proxy;
	fastcgi_temp_path $dir/nginx/fastcgi;
	uwsgi_temp_path $dir/nginx/uwsgi;
	scgi_temp_path $dir/nginx/scgi;
	server {
		listen 127.0.0.1:$port;
		location / { return 200 "ok\n"; }
	}
}
CONF
