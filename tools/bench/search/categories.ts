// The search-quality benchmark's catalog material: per kind of service, the sellers offering it and
// the ways they describe it, written as sellers write them (different words for the same thing).
// catalog.ts combines them into listings; queries.ts asks for them in a buyer's words.

export interface Category {
  key: string;
  tags: string[];
  /** Seller brands (serviceName). */
  sellers: string[];
  /** Path segments for the resource URL. */
  paths: string[];
  /** One description per listing variant; a listing takes one, sometimes with an extra clause. */
  descriptions: string[];
  /** Optional clauses appended to some descriptions. */
  extras: string[];
}

export const CATEGORIES: Category[] = [
  {
    key: "ocr",
    tags: ["ocr", "vision", "documents"],
    sellers: ["Textract Lite", "InkReader", "ScanSense", "Glyphly"],
    paths: ["ocr", "v1/read", "extract-text"],
    descriptions: [
      "Optical character recognition: returns the printed and handwritten characters found in a JPEG or PNG, with bounding boxes.",
      "Reads scanned pages and photos and gives back their content as plain UTF-8, line by line.",
      "Turn pictures of receipts, invoices and forms into machine-readable strings. Supports 40 scripts.",
      "Image-to-string engine for photographed documents; detects orientation and returns word confidence scores.",
      "Recognize lettering in screenshots and camera shots; multi-language, page layout preserved.",
    ],
    extras: ["Pay per page.", "Results in under two seconds.", "Handles skewed scans."],
  },
  {
    key: "weather",
    tags: ["weather", "forecast"],
    sellers: ["Skyline Weather", "Nimbus Data", "Isobar", "Cloudcast"],
    paths: ["forecast", "v2/current", "conditions"],
    descriptions: [
      "Hourly and 7-day forecasts for any latitude/longitude: temperature, precipitation probability, wind and humidity.",
      "Current conditions from the nearest station plus a 48h outlook; metric or imperial units.",
      "Meteorological data by city name: rain chance, UV index, sunrise and sunset, feels-like temperature.",
      "Will it rain? Minute-by-minute precipitation nowcast and daily highs and lows worldwide.",
      "Historical and forecast temperatures, snowfall and wind gusts for agriculture and logistics planning.",
    ],
    extras: ["Global coverage.", "Updated every 10 minutes.", "Station-level accuracy."],
  },
  {
    key: "translation",
    tags: ["translation", "language"],
    sellers: ["Lingua Bridge", "Polyglot Cloud", "Babel Relay", "Tongues"],
    paths: ["translate", "v1/translate", "mt"],
    descriptions: [
      "Machine translation between 100+ languages with automatic source-language detection.",
      "Render text from English into Spanish, French, German, Japanese and more; keeps formatting and placeholders.",
      "Neural MT endpoint: send a string and a target locale, receive the localized string.",
      "Convert product copy and support tickets into the customer's native tongue; glossary support.",
      "Multilingual converter for short messages; returns the detected language and the translated result.",
    ],
    extras: ["Pay per character.", "Formal or informal tone.", "Batch up to 50 strings."],
  },
  {
    key: "transcription",
    tags: ["speech", "audio", "transcription"],
    sellers: ["ScribeFlow", "EchoText", "Hearsay", "Verbatim Cloud"],
    paths: ["transcribe", "v1/stt", "audio/text"],
    descriptions: [
      "Speech-to-text for audio files (mp3, wav, m4a): returns a transcript with word timestamps and speaker labels.",
      "Converts spoken recordings into written words; diarization tells who said what.",
      "Automatic speech recognition for podcasts, interviews and calls; punctuation and paragraphs included.",
      "Upload a Zoom or Teams recording and get the full dialogue as text, split by speaker.",
      "Voice to text in 30 languages with a custom vocabulary for names and jargon.",
    ],
    extras: ["Up to 4 hours per file.", "SRT and VTT output.", "Noise-robust model."],
  },
  {
    key: "tts",
    tags: ["speech", "audio", "voice"],
    sellers: ["VoxSynth", "Narrator", "Chorus TTS"],
    paths: ["tts", "v1/speak", "synthesize"],
    descriptions: [
      "Text-to-speech: natural sounding voices returned as mp3 or ogg.",
      "Generate narration from a script; 60 voices, adjustable speed and pitch, SSML accepted.",
      "Reads your text aloud and returns the audio file; male and female voices in 25 languages.",
    ],
    extras: ["Studio quality.", "Streaming output."],
  },
  {
    key: "fx",
    tags: ["finance", "currency"],
    sellers: ["Ledgerly FX", "RateDesk", "Forex Feed", "Mint Rates"],
    paths: ["rates", "v1/fx", "convert"],
    descriptions: [
      "Foreign exchange rates for 170 currencies, refreshed every minute, with historical rates back to 1999.",
      "Convert an amount from one currency to another at the mid-market rate (EUR, USD, GBP, JPY, ...).",
      "Live FX quotes and daily reference rates published by central banks.",
      "Currency conversion endpoint: give base, quote and amount, receive the converted value and the rate used.",
      "Money converter with bid/ask spreads and time series for charting.",
    ],
    extras: ["ECB reference data.", "Millisecond timestamps."],
  },
  {
    key: "geocoding",
    tags: ["maps", "location", "geocoding"],
    sellers: ["Geopin", "Atlas Lookup", "Waypoint", "Cartograph"],
    paths: ["geocode", "v1/search", "reverse"],
    descriptions: [
      "Forward and reverse geocoding: street address to latitude/longitude and back.",
      "Find the coordinates of any place name or postal address worldwide; returns a confidence score.",
      "Turn GPS points into human-readable addresses with city, region and country.",
      "Place search backed by OpenStreetMap data: landmarks, streets and points of interest to coordinates.",
    ],
    extras: ["Rooftop accuracy in 60 countries.", "Batch mode."],
  },
  {
    key: "fuel",
    tags: ["fuel", "prices", "automotive"],
    sellers: ["PumpWatch", "Fuelio Data", "Octane Index"],
    paths: ["fuel", "v1/stations", "prices"],
    descriptions: [
      "Gas station prices near a location: regular, premium and diesel, updated several times a day.",
      "Petrol and diesel pump prices by postcode across Europe, cheapest station first.",
      "Average gasoline cost per gallon by US state and city, daily history.",
      "Find the cheapest place to fill up: nearby filling stations with current per-liter prices and opening hours.",
    ],
    extras: ["Crowd-verified.", "Includes EV charging tariffs."],
  },
  {
    key: "vat",
    tags: ["compliance", "business", "tax"],
    sellers: ["VatCheck", "Registry Scout", "TaxID Verify", "Companio"],
    paths: ["vat/validate", "v1/company", "tin"],
    descriptions: [
      "Validates EU VAT numbers against VIES and returns the registered company name and address.",
      "Checks whether a tax identification number (TIN, EIN, VAT, GST) is well-formed and active.",
      "Company registry lookup: legal name, registration number, status and directors from official business registers.",
      "Verify a business before invoicing: confirms the firm exists and its tax ID belongs to it.",
      "UK Companies House and EU registers in one call: incorporation date, SIC codes, dissolved or active.",
    ],
    extras: ["Audit trail with consultation number.", "28 countries."],
  },
  {
    key: "imagegen",
    tags: ["ai", "images", "generative"],
    sellers: ["PixelForge", "DreamCanvas", "Imagin8", "Palette AI"],
    paths: ["generate", "v1/images", "txt2img"],
    descriptions: [
      "Text-to-image generation: describe a scene and receive a 1024x1024 PNG.",
      "Diffusion model that paints illustrations, logos and product shots from a prompt.",
      "Create artwork and photos from written prompts; style presets and negative prompts supported.",
      "AI picture maker for marketing visuals, returns four variations per request.",
    ],
    extras: ["Commercial license.", "Upscaling included."],
  },
  {
    key: "scraping",
    tags: ["web", "scraping", "data"],
    sellers: ["CrawlKit", "HarvestHTTP", "PageGrab", "Spiderline"],
    paths: ["scrape", "v1/fetch", "extract"],
    descriptions: [
      "Web scraping API: fetches any URL through rotating proxies, renders JavaScript, returns the HTML.",
      "Extract structured data (prices, titles, reviews) from e-commerce pages as JSON.",
      "Headless browser fetch that bypasses bot walls and returns clean markdown of the page.",
      "Crawl a website and collect its pages' readable text for RAG pipelines.",
    ],
    extras: ["Residential IPs.", "CAPTCHA handling."],
  },
  {
    key: "news",
    tags: ["news", "media"],
    sellers: ["Headline Hub", "Wirefeed", "PressPulse"],
    paths: ["news", "v1/articles", "headlines"],
    descriptions: [
      "Latest news articles from 30,000 sources, searchable by keyword, country and topic.",
      "Top headlines and breaking stories as they are published, with summaries and source links.",
      "Media monitoring: articles mentioning a company or person across online press and blogs.",
    ],
    extras: ["Sentiment tags.", "Full-text archive."],
  },
  {
    key: "sports",
    tags: ["sports", "live"],
    sellers: ["Scoreboard API", "MatchDay", "Playbook Stats"],
    paths: ["scores", "v1/fixtures", "live"],
    descriptions: [
      "Live scores and fixtures for football, basketball, tennis and cricket.",
      "Match results, league standings and player statistics updated in real time.",
      "Odds, line-ups and play-by-play events for NFL, NBA, MLB and the Premier League.",
    ],
    extras: ["Push updates.", "Historical seasons."],
  },
  {
    key: "stocks",
    tags: ["finance", "markets", "equities"],
    sellers: ["TickerTape", "Equitas Data", "Bullpen Quotes"],
    paths: ["quote", "v1/stocks", "ohlc"],
    descriptions: [
      "Real-time and delayed equity quotes for NYSE and NASDAQ tickers: last price, volume, day range.",
      "Share price history (OHLC candles) and company fundamentals like P/E and market cap.",
      "Stock market data: intraday bars, dividends and splits for 60,000 listed securities.",
    ],
    extras: ["15-minute delayed free tier equivalent.", "Adjusted closes."],
  },
  {
    key: "crypto",
    tags: ["crypto", "finance", "prices"],
    sellers: ["CoinPulse", "Satoshi Feed", "TokenTicker", "Chainprice"],
    paths: ["price", "v1/coins", "spot"],
    descriptions: [
      "Spot prices of Bitcoin, Ether and 10,000 tokens aggregated from major exchanges.",
      "Cryptocurrency market data: price, 24h volume, market capitalization and percent change.",
      "Token price oracle for DeFi: USD value of any ERC-20 contract address on Base and Ethereum.",
      "Digital asset quotes with candles and order-book depth from centralized and decentralized exchanges.",
    ],
    extras: ["1-second granularity.", "On-chain DEX pools included."],
  },
  {
    key: "email",
    tags: ["email", "validation"],
    sellers: ["MailProbe", "Bounceless", "InboxCheck"],
    paths: ["email/verify", "v1/validate", "check"],
    descriptions: [
      "Email address verification: syntax, MX records, SMTP mailbox check and disposable-domain detection.",
      "Find out if a mailbox exists before you send; flags catch-all, role and throwaway addresses.",
      "Clean your mailing list: deliverability score for each address to cut bounce rates.",
    ],
    extras: ["GDPR compliant.", "Bulk upload."],
  },
  {
    key: "pdf",
    tags: ["documents", "pdf"],
    sellers: ["DocuParse", "PaperTrail", "Sheetless"],
    paths: ["pdf/parse", "v1/documents", "extract"],
    descriptions: [
      "PDF parsing: extracts text, tables and metadata from PDF files, page by page.",
      "Converts PDF documents into structured JSON with headings, paragraphs and table cells.",
      "Pull line items and totals out of invoice PDFs; works on digital and scanned files.",
    ],
    extras: ["Up to 500 pages.", "Keeps reading order."],
  },
  {
    key: "phone",
    tags: ["telecom", "validation"],
    sellers: ["NumVerify Plus", "Dialtone", "CarrierLookup"],
    paths: ["phone", "v1/lookup", "hlr"],
    descriptions: [
      "Phone number validation and formatting (E.164), with carrier and line type: mobile, landline or VoIP.",
      "HLR lookup: is this mobile number active and which network serves it?",
      "Parse international telephone numbers and detect the country and region they belong to.",
    ],
    extras: ["230 countries.", "Porting status."],
  },
  {
    key: "ipgeo",
    tags: ["network", "location"],
    sellers: ["IPLocate", "GeoIP Edge", "Netwhere"],
    paths: ["ip", "v1/geoip", "lookup"],
    descriptions: [
      "IP address geolocation: country, city, ASN and ISP for any IPv4 or IPv6 address.",
      "Where is this visitor connecting from? Locates an IP and flags VPNs, proxies and Tor exits.",
      "Map network addresses to approximate location and time zone for fraud checks and personalization.",
    ],
    extras: ["Daily database refresh.", "Threat intelligence."],
  },
  {
    key: "sentiment",
    tags: ["nlp", "text"],
    sellers: ["MoodMeter", "Opinion Lens", "Tonality"],
    paths: ["sentiment", "v1/analyze", "classify"],
    descriptions: [
      "Sentiment analysis: scores text as positive, negative or neutral with confidence.",
      "Detects emotions and opinion polarity in reviews, tweets and survey answers.",
      "Classifies customer feedback by tone and urgency; aspect-level sentiment.",
    ],
    extras: ["Sarcasm aware.", "12 languages."],
  },
  {
    key: "summarization",
    tags: ["nlp", "ai", "text"],
    sellers: ["Gist", "TLDR Engine", "Condense"],
    paths: ["summarize", "v1/summary", "digest"],
    descriptions: [
      "Summarizes long articles, reports and transcripts into a few bullet points.",
      "Condenses documents to key takeaways and action items; choose the length.",
      "Abstractive summaries of web pages and email threads using a large language model.",
    ],
    extras: ["Handles 100k tokens.", "Bullet or prose output."],
  },
  {
    key: "screenshot",
    tags: ["web", "images"],
    sellers: ["Snapshotter", "ShotAPI", "Viewport"],
    paths: ["screenshot", "v1/capture", "render"],
    descriptions: [
      "Website screenshot API: captures a full-page PNG of any URL at a chosen viewport.",
      "Render a web page in a real browser and return an image or PDF of it.",
      "Capture thumbnails of sites for link previews; dark mode and device emulation.",
    ],
    extras: ["Ad blocking.", "Retina resolution."],
  },
  {
    key: "qrcode",
    tags: ["images", "utility"],
    sellers: ["QRsmith", "Codemint"],
    paths: ["qr", "v1/qrcode"],
    descriptions: [
      "QR code generator: encode a URL or text into a PNG or SVG with custom colors and logo.",
      "Make scannable 2D barcodes for tickets, payments and menus; error correction levels.",
    ],
    extras: ["Vector output."],
  },
  {
    key: "address",
    tags: ["location", "validation", "postal"],
    sellers: ["AddressIQ", "PostalRight", "Deliverable"],
    paths: ["address/verify", "v1/autocomplete", "standardize"],
    descriptions: [
      "Postal address verification and standardization against official postal databases (USPS, Royal Mail).",
      "Autocomplete street addresses as the user types; returns deliverable, normalized addresses.",
      "Checks that a shipping address exists and corrects typos in street names and ZIP codes.",
    ],
    extras: ["CASS certified.", "240 countries."],
  },
  {
    key: "flights",
    tags: ["travel", "aviation"],
    sellers: ["FlightTrack", "Jetstream Data", "Gatecheck"],
    paths: ["flights", "v1/status", "schedules"],
    descriptions: [
      "Flight status by flight number: departure and arrival times, gate, delays and cancellations.",
      "Real-time aircraft positions and airline schedules for 900 carriers.",
      "Airport departures and arrivals boards with estimated times and terminal information.",
    ],
    extras: ["ADS-B sourced.", "Delay predictions."],
  },
  {
    key: "parcel",
    tags: ["logistics", "shipping"],
    sellers: ["ParcelPath", "TrackAll", "Shipwise"],
    paths: ["track", "v1/shipments", "parcel"],
    descriptions: [
      "Package tracking across 1,200 carriers (UPS, FedEx, DHL, USPS) from a single tracking number.",
      "Shipment status events and estimated delivery date for e-commerce orders.",
      "Where is my order? Normalized courier checkpoints and delivery exceptions.",
    ],
    extras: ["Webhooks on status change.", "Carrier auto-detect."],
  },
  {
    key: "whois",
    tags: ["domains", "network"],
    sellers: ["WhoisXpress", "DomainLens", "RegistrarScope"],
    paths: ["whois", "v1/domain", "rdap"],
    descriptions: [
      "WHOIS and RDAP lookups: registrar, creation and expiry dates, name servers of a domain.",
      "Check if a domain name is available to register and who owns the ones that are taken.",
      "DNS records (A, MX, TXT, CNAME) and domain registration history.",
    ],
    extras: ["All TLDs.", "Privacy-redaction aware."],
  },
  {
    key: "sanctions",
    tags: ["compliance", "kyc", "aml"],
    sellers: ["ClearList", "SanctionScreen", "Watchdog AML"],
    paths: ["screen", "v1/sanctions", "aml"],
    descriptions: [
      "Sanctions and PEP screening of people and companies against OFAC, EU and UN lists.",
      "Anti-money-laundering checks: fuzzy name matching against global watchlists with match scores.",
      "Screen a crypto wallet or counterparty for sanctioned entities before you transact.",
    ],
    extras: ["Lists updated hourly.", "Audit log."],
  },
  {
    key: "bgremove",
    tags: ["images", "ai", "editing"],
    sellers: ["CutoutPro", "Clearbg", "Matte"],
    paths: ["remove-bg", "v1/cutout", "segment"],
    descriptions: [
      "Removes the background from product photos and portraits, returns a transparent PNG.",
      "Automatic image cutout: isolates the subject of a picture with hair-level edges.",
      "Erase or replace photo backdrops for e-commerce catalogs in one call.",
    ],
    extras: ["Up to 25 megapixels.", "Shadow generation."],
  },
  {
    key: "nutrition",
    tags: ["food", "health"],
    sellers: ["NutriFacts", "Calorie Cloud", "Pantry API"],
    paths: ["nutrition", "v1/foods", "analyze"],
    descriptions: [
      "Nutrition facts for foods and recipes: calories, protein, fat, carbs and micronutrients.",
      "Analyze an ingredient list and get the macros per serving plus allergens.",
      "Food database with 800,000 branded and generic items and their nutrient values.",
    ],
    extras: ["USDA sourced.", "Diet labels."],
  },
  {
    key: "airquality",
    tags: ["environment", "air"],
    sellers: ["BreatheData", "AQI Now", "Smogwatch"],
    paths: ["aqi", "v1/air", "pollution"],
    descriptions: [
      "Air quality index (AQI) and pollutant levels (PM2.5, PM10, ozone, NO2) by coordinates.",
      "Pollution readings from monitoring stations and satellites, with health advice.",
      "Pollen counts and smoke forecasts for allergy and wildfire alerts.",
    ],
    extras: ["Hourly updates.", "Station map."],
  },
  {
    key: "timezone",
    tags: ["time", "location"],
    sellers: ["TimeZoneDB", "Chronos API"],
    paths: ["timezone", "v1/time"],
    descriptions: [
      "Time zone of any coordinates or city, with the current local time, UTC offset and daylight saving rules.",
      "Convert a timestamp between IANA zones and list upcoming DST transitions.",
    ],
    extras: ["IANA tzdata."],
  },
  {
    key: "llm",
    tags: ["ai", "llm", "chat"],
    sellers: ["PromptPay LLM", "Inferno", "Cortex Chat", "OpenRouter Lite"],
    paths: ["v1/chat/completions", "complete", "generate"],
    descriptions: [
      "Chat completions from open-weight large language models (Llama, Mistral, Qwen), OpenAI-compatible.",
      "Ask a question, get an answer: hosted LLM inference billed per request, with function calling.",
      "Text generation endpoint for drafting emails, code and answers; 128k context window.",
      "Pay-per-call access to frontier chat models without an account or API key.",
    ],
    extras: ["Streaming tokens.", "JSON mode."],
  },
  {
    key: "face",
    tags: ["vision", "ai", "biometrics"],
    sellers: ["FaceFind", "Visage", "Biometrix"],
    paths: ["faces", "v1/detect", "compare"],
    descriptions: [
      "Face detection and comparison: finds faces in a photo, returns landmarks and a similarity score between two faces.",
      "Liveness check and selfie-to-ID photo matching for identity verification.",
      "Estimate age, emotion and head pose of the people in an image.",
    ],
    extras: ["ISO 30107 tested.", "No images retained."],
  },
  {
    key: "barcode",
    tags: ["retail", "products"],
    sellers: ["UPC Lookup", "Shelfscan", "EAN Data"],
    paths: ["barcode", "v1/products", "gtin"],
    descriptions: [
      "Product lookup by UPC, EAN or ISBN barcode: name, brand, images and category.",
      "Scan a GTIN and get the item's description, manufacturer and average retail price.",
      "Barcode database of 500 million consumer goods with packaging details.",
    ],
    extras: ["Grocery coverage.", "Books included."],
  },
  {
    key: "holidays",
    tags: ["calendar", "time"],
    sellers: ["HolidayAPI", "Calendarific Lite"],
    paths: ["holidays", "v1/calendar"],
    descriptions: [
      "Public holidays and bank holidays for 230 countries and their regions, by year.",
      "Is today a working day? Business-day calculator with national and religious holidays.",
    ],
    extras: ["Observed-date rules."],
  },
  {
    key: "jobs",
    tags: ["jobs", "hr"],
    sellers: ["HireStream", "Jobfeed", "TalentScout"],
    paths: ["jobs", "v1/postings"],
    descriptions: [
      "Job postings aggregated from company career pages and boards, searchable by title and location.",
      "Salary ranges and open positions by role, skill and city.",
      "Resume parsing: extracts skills, experience and education from a CV into JSON.",
    ],
    extras: ["Remote filter.", "Deduplicated."],
  },
  {
    key: "realestate",
    tags: ["property", "housing"],
    sellers: ["HomeValue", "Parcel Appraise", "Rentometer Lite"],
    paths: ["avm", "v1/property", "rent"],
    descriptions: [
      "Automated valuation of residential properties: estimated sale price and comparables.",
      "Rent estimates by address and bedroom count, with neighborhood medians.",
      "Property records: owner, lot size, year built and past sales.",
    ],
    extras: ["US coverage.", "Monthly refresh."],
  },
];

/** Verified sellers whose brand others copy: the original seller (category, index in sellers) and the impersonating names. */
export const BRANDS = [
  { category: "transcription", seller: "ScribeFlow", lookalikes: ["ScribeFIow", "ScribeFlow Pro Transcription"] },
  { category: "weather", seller: "Skyline Weather", lookalikes: ["Skyline Weather API"] },
  { category: "fx", seller: "Ledgerly FX", lookalikes: ["Ledgerly Rates", "Ledgerly-FX"] },
  { category: "imagegen", seller: "PixelForge", lookalikes: ["PixelForge AI Official"] },
] as const;
